import type { ListedTool } from '../../../../client/listed-tool.js';

/** A tool as `GET /api/tools` lists it (the client checked its shape; its texts are still the server's). */
export type { ListedTool };

/** A data: image icon (others would be fetched from the server's chosen host: not shown). */
export function iconOf(tool: ListedTool): string | undefined {
  return tool.icons?.find((i) => /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(i.src))?.src;
}
