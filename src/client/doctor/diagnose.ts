import type { ClientTarget } from '../types.js';
import { checkAuthMetadata, checkHttp, checkToken } from './http-probe.js';
import { checkDns, checkTcp, checkTls, checkUrl } from './network.js';
import { capturing, checkCommand, checkSession } from './session.js';
import { StepLog } from './steps.js';
import type { DoctorOptions, DoctorReport } from './types.js';

/**
 * The connection doctor (issue 25): connects to a server step by step (URL,
 * DNS, TCP, TLS, HTTP, authorization, era, tools; or a stdio command's spawn,
 * era, tools) and says which step failed and what to try. Every step and the
 * whole run are bounded; text from the server is cleaned and capped; header
 * values are never reported.
 */
export async function diagnoseConnection(target: ClientTarget, options: DoctorOptions = {}): Promise<DoctorReport> {
  const log = new StepLog();
  const step = options.stepTimeoutMs ?? 5_000;
  let timer: NodeJS.Timeout | undefined;
  const total = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => {
      log.steps.push({ id: 'timeout', status: 'failed', summary: `the diagnosis did not finish within ${options.totalTimeoutMs ?? 30_000} ms`, ms: 0 });
      resolve(false);
    }, options.totalTimeoutMs ?? 30_000);
  });
  try {
    const ok = await Promise.race([run(log, target, options, step), total]);
    return { ok, steps: [...log.steps] };
  } finally {
    clearTimeout(timer);
  }
}

async function run(log: StepLog, target: ClientTarget, options: DoctorOptions, step: number): Promise<boolean> {
  if ('command' in target) {
    if (!(await checkCommand(log, target))) return false;
    const captured = capturing(target);
    return checkSession(log, captured.target, options, step, captured.tail);
  }
  if (!('url' in target)) return checkSession(log, target, options, step);
  const url = checkUrl(log, String(target.url));
  if (!url) return false;
  const address = await checkDns(log, url, step);
  if (address === undefined) return false;
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  if (!(await checkTcp(log, address, port, step))) return false;
  if (url.protocol === 'https:') {
    if (!(await checkTls(log, url, address, port, step))) return false;
  } else log.skip('tls', 'plain http: no TLS');
  const headers = { ...(target.headers ?? {}) } as Record<string, string>;
  const answer = await checkHttp(log, url, headers, step);
  if (!answer) return false;
  const refused = answer.status === 401 || answer.status === 403;
  if (refused) await checkAuthMetadata(log, url, answer.challenge, step);
  await checkToken(log, url, headers, options.tokenStore, refused);
  const httpOk = log.steps.find((s) => s.id === 'http')?.status === 'ok';
  // A 401 with a stored token may still connect: the session below uses it.
  if (!httpOk && !(refused && options.authorization)) {
    log.skip('era', 'the HTTP request failed');
    return false;
  }
  return checkSession(log, target, options, step);
}
