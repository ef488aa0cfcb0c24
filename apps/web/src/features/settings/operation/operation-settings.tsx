import { ChatsCard } from './chats-card';
import { ClaudeSettingsCard } from './claude-settings-card';
import { DataDashboardCard } from './data-dashboard-card';
import { DrawingCard } from './drawing-card';
import { GeminiSettingsCard } from './gemini-settings-card';
import { GeneralCard } from './general-card';
import { GroupRateLimitCard } from './group-rate-limit-card';
import { GroupRatioCard } from './group-ratio-card';
import { LogCard } from './log-card';
import { ModelPricingCard } from './model-pricing/model-pricing-card';
import { MonitoringCard } from './monitoring-card';
import { OutputLimitsCard } from './output-limits-card';
import { QuotaCard } from './quota-card';
import { RateLimitCard } from './rate-limit-card';
import { ResponsesSettingsCard } from './responses-settings-card';
import { SensitiveWordsCard } from './sensitive-words-card';
import './operation.css';

/**
 * The operation tab (spec 01 §2): super administrators only. Each card loads the options once
 * (shared query) and saves only its own keys.
 */
export function OperationSettings() {
  return (
    <div className="mg-option-tab mg-op-tab">
      <GeneralCard />
      <DrawingCard />
      <SensitiveWordsCard />
      <LogCard />
      <DataDashboardCard />
      <MonitoringCard />
      <RateLimitCard />
      <QuotaCard />
      <OutputLimitsCard />
      <ChatsCard />
      <GroupRatioCard />
      <GroupRateLimitCard />
      <ClaudeSettingsCard />
      <GeminiSettingsCard />
      <ResponsesSettingsCard />
      {/* The model ratios card (./model-pricing) is mounted last, below. */}
      <ModelPricingCard />
    </div>
  );
}
