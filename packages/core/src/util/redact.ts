/**
 * Replaces the credentials of every URL in `text` (`scheme://user:pass@host` → `scheme://***@host`),
 * so connection strings of databases and proxies can appear in errors and logs. Works on free text
 * (driver error messages) and on URLs `new URL` cannot parse (`mongodb://u:p@h1,h2/db`).
 */
export function redactUrlCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi, '$1***@');
}
