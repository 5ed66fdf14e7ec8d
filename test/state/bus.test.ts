import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolServer } from '../../src/server/server.js';
import { InProcessEventBus, type BusEvent } from '../../src/state/bus.js';
import { redisConnection } from '../../src/state/redis/connection.js';
import { RedisEventBus } from '../../src/state/redis/bus.js';
import { RedisSessionRecords } from '../../src/state/redis/sessions.js';
import { REDIS_SERVER, TestRedis } from '../helpers/redis.js';
import { until } from '../helpers/until.js';
import { wire } from '../helpers/wire.js';

const tool = (name: string) => ({ name, description: 'd', inputSchema: { type: 'object' as const }, handler: () => 'ok' });
const listen = {
  jsonrpc: '2.0',
  id: 'sub',
  method: 'subscriptions/listen',
  params: {
    notifications: { toolsListChanged: true },
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
  },
};
const changes = (written: Array<Record<string, any>>) => written.filter((m) => m.method === 'notifications/tools/list_changed').length;

describe('InProcessEventBus', () => {
  it("delivers each event once to every listener after the publisher's synchronous work; a throwing listener keeps it from none; stop ends delivery", async () => {
    const errors: unknown[] = [];
    const bus = new InProcessEventBus((err) => errors.push(err));
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error('broken listener');
    });
    const stop = bus.subscribe((e) => seen.push(`a:${e.type}`));
    bus.subscribe((e) => seen.push(`b:${e.type}`));
    void bus.publish({ type: 'list-changed', kind: 'tools' });
    expect(seen).toEqual([]);
    await until(() => seen.length === 2, 'delivery');
    expect(seen).toEqual(['a:list-changed', 'b:list-changed']);
    expect(errors).toHaveLength(1);
    stop();
    await bus.publish({ type: 'resource-updated', uri: 'file:///x' });
    await until(() => seen.length === 3, 'delivery');
    expect(seen[2]).toBe('b:resource-updated');
  });

  it('two servers on one bus: a tool added to one reaches the listen stream on the other, and its own stream once (not again from the bus)', async () => {
    const bus = new InProcessEventBus();
    const one = new ToolServer({ audit: false, tasks: false, tools: [tool('a')], bus });
    const two = new ToolServer({ audit: false, tasks: false, tools: [tool('a')], bus });
    const onOne = wire(one);
    const onTwo = wire(two);
    onOne.send(listen);
    onTwo.send(listen);
    one.tools.add(tool('b'));
    await until(() => changes(onTwo.written) === 1 && changes(onOne.written) === 1, 'both streams told');
    // Another turn: nothing more arrives (the echo of one's own event is dropped).
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect([changes(onOne.written), changes(onTwo.written)]).toEqual([1, 1]);
    one.close();
    two.close();
  });
});

let redis: TestRedis | undefined;
beforeAll(async () => {
  if (REDIS_SERVER) redis = await TestRedis.create();
}, 30_000);
afterAll(() => redis?.destroy());

/** Publishes until the listener has heard it (the subscriber connection may still be connecting or resubscribing). */
async function publishUntilHeard(bus: RedisEventBus, heard: () => boolean, event: BusEvent): Promise<void> {
  await until(
    async () => {
      if (heard()) return true;
      await bus.publish(event).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
      return heard();
    },
    'the event to arrive',
    20_000,
  );
}

describe.skipIf(!REDIS_SERVER)('RedisEventBus and RedisSessionRecords (a real redis-server)', () => {
  it('an event reaches the other instance once and its own listeners once; garbage on the channel is ignored; it flows again after Redis restarts', async () => {
    const prefix = `t${Date.now()}:`;
    const one = new RedisEventBus(redisConnection(redis!.url, { keyPrefix: prefix }));
    const two = new RedisEventBus(redisConnection(redis!.url, { keyPrefix: prefix }));
    await Promise.all([one.subscribed, two.subscribed]);
    const atOne: BusEvent[] = [];
    const atTwo: BusEvent[] = [];
    one.subscribe((e) => atOne.push(e));
    two.subscribe((e) => atTwo.push(e));
    await one.publish({ type: 'task-cancel', taskId: 't1' });
    await until(() => atTwo.length === 1, 'the other instance to hear it');
    expect(atTwo).toEqual([{ type: 'task-cancel', taskId: 't1' }]);
    // The garbage and a second event: the second arrives after the garbage (one channel, in order), so the garbage was dropped.
    await sendRaw(redis!.port, `${prefix}events`, 'not json');
    await sendRaw(redis!.port, `${prefix}events`, JSON.stringify({ origin: 'x', event: { type: 'rm -rf' } }));
    await one.publish({ type: 'list-changed', kind: 'tools' });
    await until(() => atTwo.length === 2, 'the second event');
    expect(atTwo[1]).toEqual({ type: 'list-changed', kind: 'tools' });
    expect(atOne).toHaveLength(2); // its own two, once each

    await redis!.stop();
    await expect(one.publish({ type: 'list-changed', kind: 'prompts' })).rejects.toThrow(/shared state is unavailable/);
    await redis!.start();
    await publishUntilHeard(one, () => atTwo.some((e) => e.type === 'resource-updated'), { type: 'resource-updated', uri: 'file:///back' });
    await Promise.all([one.close(), two.close()]);
  }, 60_000);

  it('session records: kept for their TTL, restarted by use, gone after DELETE or expiry; a record that is not one reads as none', async () => {
    const connection = redisConnection(redis!.url, { keyPrefix: 'rec:' });
    const records = new RedisSessionRecords(connection);
    const record = { protocolVersion: '2025-11-25', clientCapabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' }, owner: 'alice' };
    await records.put('s1', record, 60_000);
    expect(await records.get('s1', 60_000)).toEqual(record);
    expect(await records.touch('s1', 60_000)).toBe(true);
    await records.delete('s1');
    expect(await records.get('s1', 60_000)).toBeUndefined();
    expect(await records.touch('s1', 60_000)).toBe(false);
    await records.put('short', record, 300);
    // Unused, it expires (read by EXISTS: a get would start its time again).
    await until(async () => (await connection.run((c) => c.exists('rec:session:short'))) === 0, 'the record to expire');
    expect(await records.get('short', 300)).toBeUndefined();
    await connection.run((c) => c.set('rec:session:bad', JSON.stringify({ protocolVersion: 1, clientCapabilities: [] })));
    expect(await records.get('bad', 1000)).toBeUndefined();
    await records.close();
  }, 30_000);
});

/** PUBLISH from outside toolwright (raw RESP), as anything else on the Redis could. */
function sendRaw(port: number, channel: string, message: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    const args = ['PUBLISH', channel, message];
    socket.on('error', reject);
    socket.on('connect', () => socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`));
    socket.on('data', () => {
      socket.end();
      resolve();
    });
  });
}
