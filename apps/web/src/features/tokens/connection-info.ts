import type { Token } from './api';

/**
 * What a client needs to reach this gateway with one token: the base URL each SDK expects and
 * ready-to-paste snippets. The OpenAI SDKs append /chat/completions to a base ending in /v1;
 * Anthropic's and Gemini's append /v1/messages and /v1beta/models/... to the bare address.
 */
export interface BaseUrls {
  openai: string;
  anthropic: string;
  gemini: string;
}

export function baseUrlsOf(serverAddress: string): BaseUrls {
  const root = serverAddress.trim().replace(/\/+$/, '');
  return { openai: `${root}/v1`, anthropic: root, gemini: root };
}

/**
 * The model a first request should name: the token's first allowed model when it is limited to
 * some, else the first the user's groups offer; undefined when neither is known.
 */
export function firstModelOf(token: Pick<Token, 'model_limits_enabled' | 'model_limits'>, userModels: readonly string[]): string | undefined {
  if (token.model_limits_enabled) {
    const limited = token.model_limits
      .split(',')
      .map((model) => model.trim())
      .find((model) => model !== '');
    if (limited) return limited;
  }
  return userModels[0];
}

/** Single quotes for a POSIX shell: the text as is, each ' closed, escaped and reopened. */
const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

export function curlExample(serverAddress: string, key: string, model: string): string {
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello!' }] });
  return [
    `curl ${shellQuote(`${baseUrlsOf(serverAddress).openai}/chat/completions`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H ${shellQuote(`Authorization: Bearer ${key}`)} \\`,
    `  -d ${shellQuote(body)}`,
  ].join('\n');
}

export type ClientName = 'codex' | 'claudeCode' | 'geminiCli';

/** Environment variables each coding agent reads for its endpoint and key. */
export function clientEnv(client: ClientName, serverAddress: string, key: string): string {
  const urls = baseUrlsOf(serverAddress);
  const lines: [string, string][] =
    client === 'codex'
      ? [
          ['OPENAI_BASE_URL', urls.openai],
          ['OPENAI_API_KEY', key],
        ]
      : client === 'claudeCode'
        ? [
            ['ANTHROPIC_BASE_URL', urls.anthropic],
            ['ANTHROPIC_AUTH_TOKEN', key],
          ]
        : [
            ['GOOGLE_GEMINI_BASE_URL', urls.gemini],
            ['GEMINI_API_KEY', key],
          ];
  return lines.map(([name, value]) => `export ${name}=${shellQuote(value)}`).join('\n');
}
