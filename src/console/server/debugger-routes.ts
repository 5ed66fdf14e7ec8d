import { isLogLevel, LOG_LEVELS } from '../../protocol/meta.js';
import { SkillVerificationError } from '../../client/skills.js';
import type { ListedSkill, SkillRead } from '../api-types.js';
import type { ApiRoutes } from './api-routes.js';
import { ApiError, optionalString, requiredString } from './http-io.js';
import { HISTORY_CAPACITY } from './wire-history.js';

/**
 * The protocol debugger's routes: the wire history, the server's log messages and the level
 * asked for, the roots offered to the server, a sampling request rejected, and the server's
 * skills (SEP-2640) read through the client's checks (digest, size, frontmatter).
 */
export const debuggerRoutes = {
  'GET history': async ({ session }) => ({ entries: session.debugging.history.list(), capacity: HISTORY_CAPACITY }),

  'POST history/clear': async ({ session }) => {
    session.debugging.clearHistory();
    return { cleared: true };
  },

  'GET logs': async ({ session }) => {
    const era = session.client?.era;
    const level = session.debugging.level;
    return { messages: session.debugging.logList(), ...(level ? { level } : {}), ...(era ? { era } : {}) };
  },

  'POST logs/clear': async ({ session }) => {
    session.debugging.clearLogs();
    return { cleared: true };
  },

  'POST logging/level': async ({ body, session }) => {
    const level = requiredString(await body(), 'level', 16);
    if (!isLogLevel(level)) throw new ApiError(400, `level must be one of ${LOG_LEVELS.join(', ')}`);
    const client = session.requireClient();
    await client.setLogLevel(level).catch((err: unknown) => {
      throw new ApiError(502, `the server refused the log level: ${err instanceof Error ? err.message : String(err)}`);
    });
    session.debugging.level = level;
    return { level, sent: client.era === 'legacy' ? 'logging/setLevel' : '_meta' };
  },

  'GET roots': async ({ session }) => ({ roots: session.debugging.rootList() }),

  'POST roots': async ({ body, session }) => session.setRoots((await body()).roots),

  'POST input/reject': async ({ body, session }) => {
    if (!session.reject(requiredString(await body(), 'id', 64))) throw new ApiError(410, 'that question is no longer waiting for an answer');
    return { rejected: true };
  },

  'GET skills': async ({ session }) => ({ skills: (await session.requireClient().skills.list()) as ListedSkill[] }),

  'POST skills/read': async ({ body, session }) => {
    const given = await body();
    const uri = requiredString(given, 'uri', 8192);
    const file = optionalString(given, 'file', 8192);
    const skills = session.requireClient().skills;
    try {
      const entry = (await skills.list()).find((e) => e.uri === uri) ?? (await skills.get(uri));
      const read: SkillRead = { skill: entry as ListedSkill, uri: file ?? entry.uri };
      if (file === undefined) return { ...read, text: (await skills.load(entry)).text };
      const content = await skills.readFile(entry, file);
      return typeof content === 'string' ? { ...read, text: content } : { ...read, binaryBytes: content.byteLength };
    } catch (err) {
      if (err instanceof SkillVerificationError) throw new ApiError(502, `not shown: ${err.message}`);
      if (err instanceof TypeError) throw new ApiError(400, err.message);
      throw err;
    }
  },
} satisfies ApiRoutes;
