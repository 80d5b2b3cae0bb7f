import { hasUserInfo } from '../core/guide-rules.js';

/** Why a base URL cannot be used; each caller words it for its own audience. */
export type BaseUrlProblem =
  | { readonly kind: 'not-a-url' }
  | { readonly kind: 'not-http'; readonly protocol: string }
  | { readonly kind: 'query-or-fragment' }
  /** `https://user:password@host/`: never quote such a text back, it may hold a password. */
  | { readonly kind: 'user-info' };

/**
 * A base URL the client can send calls to: http or https, with a path prefix if any (a gateway's
 * `/wechat`), and no query or fragment, since the client adds the access token as the query.
 * The command line checks flags with it before any client is loaded; the client checks again.
 */
export function parseBaseUrl(text: string): { readonly url: URL } | { readonly problem: BaseUrlProblem } {
  // First: the other problems quote the text, or its scheme (`user:pa55word@host` has "user:").
  if (hasUserInfo(text)) return { problem: { kind: 'user-info' } };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: { kind: 'not-a-url' } };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: { kind: 'not-http', protocol: url.protocol } };
  // The URL class accepts a user and password, and fetch would drop them or send them: refuse them.
  if (url.username !== '' || url.password !== '') return { problem: { kind: 'user-info' } };
  if (url.search !== '' || url.hash !== '') return { problem: { kind: 'query-or-fragment' } };
  return { url };
}
