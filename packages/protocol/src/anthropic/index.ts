export {
  anthropicRequestSchema,
  anthropicErrorBody,
  type AnthropicCacheControl,
  type AnthropicContentBlock,
  type AnthropicDocumentBlock,
  type AnthropicErrorBody,
  type AnthropicImageBlock,
  type AnthropicMessage,
  type AnthropicMessageParam,
  type AnthropicRequest,
  type AnthropicStopReason,
  type AnthropicTextBlock,
  type AnthropicThinkingBlock,
  type AnthropicTool,
  type AnthropicToolChoice,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
  type AnthropicUsage,
} from './anthropic-types.js';
export { anthropicUsageToChat, chatUsageToAnthropic, anthropicStopToFinish, finishToAnthropicStop, type AnthropicUsageCounts } from './anthropic-usage.js';
export { anthropicRequestToCanonical, effortForBudget as anthropicEffortForBudget } from './anthropic-request-to-canonical.js';
export { anthropicRequestFromCanonical } from './anthropic-request-from-canonical.js';
export { anthropicResponseToCanonical, anthropicResponseFromCanonical, anthropicMessageId } from './anthropic-response.js';
export { AnthropicStreamDecoder } from './anthropic-stream-decoder.js';
export { AnthropicStreamEncoder } from './anthropic-stream-encoder.js';
export { anthropicCodec } from './anthropic-codec.js';
