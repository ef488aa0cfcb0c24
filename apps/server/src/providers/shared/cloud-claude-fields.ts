/**
 * The Anthropic request fields Claude on the clouds (Bedrock's InvokeModel, Vertex's rawPredict)
 * takes, as new-api keeps them (relay/channel/aws/dto.go AwsClaudeRequest, relay/channel/vertex/
 * dto.go VertexAIClaudeRequest). Anything else (metadata, service_tier, container, mcp_servers …)
 * is refused there ("extraneous key [metadata] is not permitted"), so it is left out.
 */
export const CLOUD_CLAUDE_FIELDS: ReadonlySet<string> = new Set([
  'anthropic_version',
  'anthropic_beta',
  'system',
  'messages',
  'max_tokens',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
]);

/** The body with only the fields the clouds take (model and stream go too: the path says both). */
export const cloudClaudeFields = (body: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(body).filter(([field]) => CLOUD_CLAUDE_FIELDS.has(field)));
