import type { ApiRoutes } from './api-routes.js';
import { ApiError, optionalObject, requiredString } from './http-io.js';

/**
 * Resources, prompts and completion through the console's client: browse, read, fill a
 * template or a prompt's arguments with the server's completions.
 */
export const primitiveRoutes = {
  'GET resources': async ({ session }) => ({ resources: await session.requireClient().listResources() }),
  'GET resource-templates': async ({ session }) => ({ resourceTemplates: await session.requireClient().listResourceTemplates() }),
  'POST resources/read': async ({ body, session }) => session.requireClient().readResource(requiredString(await body(), 'uri', 8192)),
  'GET prompts': async ({ session }) => ({ prompts: await session.requireClient().listPrompts() }),
  'POST prompts/get': async ({ body, session }) => {
    const given = await body();
    return session.requireClient().getPrompt(requiredString(given, 'name', 512), stringArguments(optionalObject(given, 'arguments') ?? {}));
  },
  /** `completion/complete`: ref is `{type: 'ref/prompt', name}` or `{type: 'ref/resource', uri}` (a template). */
  'POST complete': async ({ body, session }) => {
    const given = await body();
    const ref = optionalObject(given, 'ref');
    const argument = optionalObject(given, 'argument');
    if (!ref || (ref.type !== 'ref/prompt' && ref.type !== 'ref/resource'))
      throw new ApiError(400, 'ref must be {type: "ref/prompt", name} or {type: "ref/resource", uri}');
    if (!argument || typeof argument.name !== 'string' || typeof argument.value !== 'string') throw new ApiError(400, 'argument must be {name, value} strings');
    const context = optionalObject(given, 'context');
    return session.requireClient().request('completion/complete', { ref, argument, ...(context ? { context } : {}) });
  },
} satisfies ApiRoutes;

function stringArguments(args: Record<string, unknown>): Record<string, string> {
  for (const [key, value] of Object.entries(args)) if (typeof value !== 'string') throw new ApiError(400, `prompt argument ${key} must be a string`);
  return args as Record<string, string>;
}
