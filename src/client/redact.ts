/**
 * Redaction at the edge: nothing the client logs or throws may hold an access token or an app
 * secret. Two layers: URLs are redacted by shape (`access_token=`, `secret=`, a password in the
 * authority), and every text that came from elsewhere (an errmsg, an answer body being logged) is
 * scrubbed of every secret value the client knows.
 */

export const REDACTED = 'REDACTED';

const SECRET_PARAMS = /([?&](?:access_token|secret|appsecret|component_access_token)=)[^&#\s"']*/gi;
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:)[^@/\s]*@/gi;

/** A URL (or any text holding URLs) with secret query values and authority passwords replaced. */
export function redactUrl(text: string): string {
  return text.replace(SECRET_PARAMS, `$1${REDACTED}`).replace(URL_PASSWORD, `$1${REDACTED}@`);
}

/** The secret values one client knows: its app secret and every access token it has used. */
export class SecretSet {
  private readonly values = new Set<string>();

  add(value: string): void {
    // Very short values would scrub ordinary words; real tokens and secrets are long.
    if (value.length < 6) return;
    this.values.add(value);
    this.values.add(encodeURIComponent(value));
  }

  /** The text with every known secret, and every secret-looking URL part, replaced. */
  scrub(text: string): string {
    let out = redactUrl(text);
    for (const value of this.values) {
      if (out.includes(value)) out = out.split(value).join(REDACTED);
    }
    return out;
  }
}
