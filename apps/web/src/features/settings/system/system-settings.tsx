import { useOptionCard } from '../options/use-option-card';
import { EmailWhitelistCard, LoginCard } from './login-cards';
import { GitHubCard, LinuxDOCard, TelegramCard, TurnstileCard, WeChatCard } from './oauth-cards';
import { OidcCard } from './oidc-card';
import { PasskeyCard } from './passkey-card';
import { GENERAL_KEYS, GeneralCard, PaymentCard, WorkerCard } from './server-cards';
import { SmtpCard } from './smtp-card';
import './system-settings.css';

/**
 * The system tab (spec 01 §2): super administrators only. Each card saves its own keys; the
 * general card's state is held here so the payment card can tell a typed-but-unsaved server
 * address from a missing one.
 */
export function SystemSettings() {
  const general = useOptionCard(GENERAL_KEYS);
  return (
    <div className="mg-option-tab mg-system-tab">
      <GeneralCard card={general} />
      <WorkerCard />
      <PaymentCard general={general} />
      <LoginCard />
      <EmailWhitelistCard />
      <SmtpCard />
      <GitHubCard />
      <LinuxDOCard />
      <OidcCard />
      <PasskeyCard />
      <WeChatCard />
      <TelegramCard />
      <TurnstileCard />
    </div>
  );
}
