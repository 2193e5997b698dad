import { ValidationError, type SocialLink } from '@parley/core';
import type { MetaChannelProfile } from '../channel-profile.js';
import type { GraphClient } from '../graph/graph-client.js';
import { GraphApiError } from '../graph/graph-error.js';

/** The validated input of `POST …/link` for a Meta channel. */
export interface MetaLinkInput {
  accessToken: string;
  appSecret: string;
  verifyToken: string;
  accountId: string;
}

const SECRET_FIELDS = ['accessToken', 'appSecret', 'verifyToken'] as const;
const MAX_SECRET_LENGTH = 2048;
const ACCOUNT_ID = /^\d{1,32}$/;

/** Checks the four link fields; throws ValidationError naming the first bad one. */
export function validateLinkInput(input: Record<string, unknown>): MetaLinkInput {
  const values: Partial<Record<keyof MetaLinkInput, string>> = {};
  for (const field of [...SECRET_FIELDS, 'accountId'] as const) {
    const value = input[field];
    if (typeof value !== 'string' || value.trim() === '') {
      throw new ValidationError(`${field} is required and must be a non-empty string`, { field });
    }
    values[field] = value.trim();
  }
  for (const field of SECRET_FIELDS) {
    if (values[field]!.length > MAX_SECRET_LENGTH || /\s/.test(values[field]!)) {
      throw new ValidationError(`${field} must be a single token of at most ${MAX_SECRET_LENGTH} characters`, { field });
    }
  }
  if (!ACCOUNT_ID.test(values.accountId!)) {
    throw new ValidationError('accountId must be the numeric account id (digits only)', { field: 'accountId' });
  }
  return values as MetaLinkInput;
}

interface AccountNode {
  id?: unknown;
  username?: unknown;
  name?: unknown;
}

/**
 * Validates link input, checks the token against the Graph API and answers the link to store.
 * Token, app-secret and account failures become ValidationErrors naming the field; rate limits and
 * outages stay UpstreamErrors (retryable).
 */
export async function linkAccount(
  profile: MetaChannelProfile,
  client: GraphClient,
  input: Record<string, unknown>,
  now: number,
): Promise<SocialLink> {
  const link = validateLinkInput(input);
  const path = profile.linkCheck === 'me' ? 'me' : link.accountId;
  let node: AccountNode;
  try {
    node = await client.get<AccountNode>(path, { accessToken: link.accessToken, appSecret: link.appSecret }, { fields: profile.linkFields });
  } catch (err) {
    throw linkError(profile, link, err);
  }
  if (String(node.id) !== link.accountId) {
    throw new ValidationError(
      `accountId ${link.accountId} does not match the ${profile.label} account of the access token (${String(node.id)})`,
      { field: 'accountId' },
    );
  }
  return {
    channel: profile.channel,
    accountId: link.accountId,
    accessToken: link.accessToken,
    appSecret: link.appSecret,
    verifyToken: link.verifyToken,
    ...(typeof node.username === 'string' && node.username !== '' ? { username: node.username } : {}),
    linkedAt: now,
  };
}

function linkError(profile: MetaChannelProfile, link: MetaLinkInput, err: unknown): unknown {
  if (!(err instanceof GraphApiError)) return err;
  const details = err.details as Record<string, unknown>;
  switch (err.graph.kind) {
    case 'token':
    case 'permission':
      return new ValidationError(`accessToken was rejected: ${err.message}`, { ...details, field: 'accessToken' });
    case 'app_secret':
      return new ValidationError(`appSecret was rejected: ${err.message}`, { ...details, field: 'appSecret' });
    case 'other':
      // Graph answers 100/33 when the object does not exist or the token cannot see it.
      if (err.graph.code === 100 && profile.linkCheck === 'account') {
        return new ValidationError(`accountId ${link.accountId} was rejected: ${err.message}`, { ...details, field: 'accountId' });
      }
      return err;
    default:
      return err;
  }
}
