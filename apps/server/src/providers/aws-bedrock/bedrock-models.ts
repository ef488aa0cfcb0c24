/**
 * Claude model names → Bedrock model ids, and the cross-region inference profiles new-api
 * (relay/channel/aws/constants.go) uses for them: in a `us-*`, `eu-*` or `ap-*` region a model
 * that has a profile there is called as `us.`, `eu.` or `apac.` + its id.
 */
export const BEDROCK_MODEL_IDS: Readonly<Record<string, string>> = {
  'claude-3-sonnet-20240229': 'anthropic.claude-3-sonnet-20240229-v1:0',
  'claude-3-opus-20240229': 'anthropic.claude-3-opus-20240229-v1:0',
  'claude-3-haiku-20240307': 'anthropic.claude-3-haiku-20240307-v1:0',
  'claude-3-5-sonnet-20240620': 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'claude-3-5-sonnet-20241022': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-haiku-20241022': 'anthropic.claude-3-5-haiku-20241022-v1:0',
  'claude-3-7-sonnet-20250219': 'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'claude-sonnet-4-20250514': 'anthropic.claude-sonnet-4-20250514-v1:0',
  'claude-opus-4-20250514': 'anthropic.claude-opus-4-20250514-v1:0',
  'claude-opus-4-1-20250805': 'anthropic.claude-opus-4-1-20250805-v1:0',
  'claude-sonnet-4-5-20250929': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'claude-haiku-4-5-20251001': 'anthropic.claude-haiku-4-5-20251001-v1:0',
  'claude-opus-4-5-20251101': 'anthropic.claude-opus-4-5-20251101-v1:0',
};

type Geography = 'us' | 'eu' | 'ap';
const ALL: readonly Geography[] = ['us', 'eu', 'ap'];

/** Which geographies have a cross-region profile for a model id. */
const CROSS_REGION: Readonly<Record<string, readonly Geography[]>> = {
  'anthropic.claude-3-sonnet-20240229-v1:0': ALL,
  'anthropic.claude-3-opus-20240229-v1:0': ['us'],
  'anthropic.claude-3-haiku-20240307-v1:0': ALL,
  'anthropic.claude-3-5-sonnet-20240620-v1:0': ALL,
  'anthropic.claude-3-5-sonnet-20241022-v2:0': ['us', 'ap'],
  'anthropic.claude-3-5-haiku-20241022-v1:0': ['us'],
  'anthropic.claude-3-7-sonnet-20250219-v1:0': ALL,
  'anthropic.claude-sonnet-4-20250514-v1:0': ALL,
  'anthropic.claude-opus-4-20250514-v1:0': ['us'],
  'anthropic.claude-opus-4-1-20250805-v1:0': ['us'],
  'anthropic.claude-sonnet-4-5-20250929-v1:0': ALL,
  'anthropic.claude-haiku-4-5-20251001-v1:0': ALL,
  'anthropic.claude-opus-4-5-20251101-v1:0': ALL,
};

const PROFILE_PREFIX: Readonly<Record<Geography, string>> = { us: 'us', eu: 'eu', ap: 'apac' };

const isGeography = (value: string): value is Geography => value === 'us' || value === 'eu' || value === 'ap';

/**
 * The id to call for a model in a region: a known Claude name maps to its Bedrock id, which gets
 * the region's cross-region prefix where new-api applies one; anything else (an id already in
 * Bedrock form, a profile, an ARN) is called as given.
 */
export function bedrockModelId(model: string, region: string): string {
  const id = BEDROCK_MODEL_IDS[model] ?? model;
  const geography = region.split('-')[0] ?? '';
  if (!isGeography(geography)) return id;
  return CROSS_REGION[id]?.includes(geography) ? `${PROFILE_PREFIX[geography]}.${id}` : id;
}

/**
 * The foundation-model id for a model, never a cross-region profile: Bedrock's CountTokens takes
 * only the bare id (docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CountTokens.html).
 */
export function bedrockFoundationModelId(model: string): string {
  return (BEDROCK_MODEL_IDS[model] ?? model).replace(/^(us|eu|apac|global)\./, '');
}
