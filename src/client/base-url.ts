/** Why a base URL cannot be used; each caller words it for its own audience. */
export type BaseUrlProblem =
  | { readonly kind: 'not-a-url' }
  | { readonly kind: 'not-http'; readonly protocol: string }
  | { readonly kind: 'query-or-fragment' };

/**
 * A base URL the client can send calls to: http or https, with a path prefix if any (a gateway's
 * `/wechat`), and no query or fragment, since the client adds the access token as the query.
 * The command line checks flags with it before any client is loaded; the client checks again.
 */
export function parseBaseUrl(text: string): { readonly url: URL } | { readonly problem: BaseUrlProblem } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: { kind: 'not-a-url' } };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { problem: { kind: 'not-http', protocol: url.protocol } };
  if (url.search !== '' || url.hash !== '') return { problem: { kind: 'query-or-fragment' } };
  return { url };
}
