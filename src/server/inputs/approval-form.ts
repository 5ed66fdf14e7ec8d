import type { ElicitSchema } from '../tool.js';

/**
 * The one field every yes/no confirmation asks with: the server's approval of destructive tools
 * and a tool's own confirmation (`delete_file`) alike, so a client written from the docs answers
 * both the same way (issue 30: `confirm` in one, `approve` in the other, and the wrong one was
 * read as a silent "no").
 */
export const APPROVAL_FIELD = 'approve';

/** The form of a confirmation: one required boolean, `approve`, false unless the user says yes. */
export function approvalForm(title: string, description: string): ElicitSchema {
  return {
    type: 'object',
    properties: { [APPROVAL_FIELD]: { type: 'boolean', title, description, default: false } },
    required: [APPROVAL_FIELD],
  };
}

/**
 * Why an accepted answer is not the form's (`{ "approve": true|false }`), or undefined. A client
 * that filled in some other field, or none, has not said no: reading it as "not approved" hid
 * the client's bug behind a refusal, so the caller refuses it naming the expected field.
 */
export function misfitApproval(content: Record<string, unknown> | undefined): string | undefined {
  const keys = Object.keys(content ?? {});
  const unknown = keys.filter((k) => k !== APPROVAL_FIELD);
  if (unknown.length)
    return `unknown field${unknown.length > 1 ? 's' : ''} ${unknown
      .slice(0, 5)
      .map((k) => JSON.stringify(k.slice(0, 64)))
      .join(', ')}`;
  if (!keys.includes(APPROVAL_FIELD)) return `no "${APPROVAL_FIELD}" field`;
  if (typeof content![APPROVAL_FIELD] !== 'boolean')
    return `"${APPROVAL_FIELD}" is ${JSON.stringify(content![APPROVAL_FIELD])?.slice(0, 64)}, not true or false`;
  return undefined;
}
