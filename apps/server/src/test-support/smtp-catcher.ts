import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One mail as the local SMTP server received it, with the parts a test reads decoded. */
export interface CaughtMail {
  /** The envelope recipients. */
  to: string[];
  from: string;
  /** The account the client authenticated as ('' when it did not). */
  authUser: string;
  subject: string;
  /** The text/html body, transfer encoding undone. */
  html: string;
  raw: string;
}

export interface SmtpCatcher {
  port: number;
  mails: CaughtMail[];
  /** Resolves with the first mail (already caught or still to come) sent to `address`. */
  nextMailTo(address: string, timeoutMs?: number): Promise<CaughtMail>;
  close(): Promise<void>;
}

const decodeQuotedPrintable = (text: string): Buffer => {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let index = 0; index < joined.length; index += 1) {
    const char = joined[index]!;
    if (char === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(index + 1, index + 3))) {
      bytes.push(Number.parseInt(joined.slice(index + 1, index + 3), 16));
      index += 2;
    } else {
      bytes.push(...Buffer.from(char, 'utf8'));
    }
  }
  return Buffer.from(bytes);
};

/** RFC 2047 encoded words in a header (`=?UTF-8?B?...?=`, `=?UTF-8?Q?...?=`). */
const decodeHeader = (value: string): string =>
  value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=/gi, (_match, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')).toString('utf8'),
    );

function parseHeaders(block: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** Finds the text/html part of a (possibly multipart) message and decodes it. */
function htmlOf(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const headers = parseHeaders(raw.slice(0, split));
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      const html = htmlOf(part.replace(/^\r?\n/, ''));
      if (html !== '') return html;
    }
    return '';
  }
  if (!type.toLowerCase().startsWith('text/html')) return '';
  const encoding = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body).toString('utf8');
  return body;
}

/**
 * A real SMTP server on 127.0.0.1 for tests: plain connections (no STARTTLS offered), AUTH
 * allowed without TLS, accepting only `credentials` when given.
 */
export async function startSmtpCatcher(credentials?: { user: string; pass: string }): Promise<SmtpCatcher> {
  const mails: CaughtMail[] = [];
  const waiters: { address: string; resolve: (mail: CaughtMail) => void }[] = [];
  const server = new SMTPServer({
    authOptional: credentials === undefined,
    allowInsecureAuth: true,
    hideSTARTTLS: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (credentials && auth.username === credentials.user && auth.password === credentials.pass) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error('Invalid username or password'));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const headers = parseHeaders(raw.slice(0, raw.search(/\r?\n\r?\n/)));
        const mail: CaughtMail = {
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          authUser: typeof session.user === 'string' ? session.user : '',
          subject: decodeHeader(headers.get('subject') ?? ''),
          html: htmlOf(raw),
          raw,
        };
        mails.push(mail);
        for (const waiter of [...waiters]) {
          if (mail.to.includes(waiter.address)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(mail);
          }
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    nextMailTo(address, timeoutMs = 10_000) {
      const already = mails.find((mail) => mail.to.includes(address));
      if (already) {
        mails.splice(mails.indexOf(already), 1);
        return Promise.resolve(already);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail to ${address} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          address,
          resolve: (mail) => {
            clearTimeout(timer);
            mails.splice(mails.indexOf(mail), 1);
            resolve(mail);
          },
        });
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
