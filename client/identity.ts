/**
 * Who this client is, as it tells the conversation (docs/human-control.md): `HERALD_IDENTITY`, or
 * `<user>@<host>`. It names the requester of an approval (the identity that sent the message) and
 * the approver in the approvals audit. A client states its own identity, as Temporal's own
 * `identity` field is stated: the audit records what was claimed, and `approvals.separateApprover`
 * keeps one identity from approving its own requests; it is not authentication.
 */
import { hostname, userInfo } from 'node:os';
import { MAX_IDENTITY_CHARS } from '../common/contract.js';

export function clientIdentity(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.HERALD_IDENTITY?.trim();
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry for this uid (a container): the host alone still says something.
  }
  const id = given || `${user}@${hostname()}`;
  return id.replace(/\s+/g, ' ').slice(0, MAX_IDENTITY_CHARS);
}
