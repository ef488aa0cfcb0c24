import { IconHome, IconInfoCircle } from '@douyinfe/semi-icons';
import { aboutKeys } from '../../about/queries';
import { homeKeys } from '../../home/queries';
import { LogoCard, SystemNameCard } from './branding-cards';
import { ContentCard } from './content-card';
import { FooterCard } from './footer-card';
import { NoticeCard } from './notice-card';
import './other-settings.css';

/**
 * The other tab (spec 01 §2): notice, system name, logo, home page content, about and footer, each
 * saved on its own with a live preview. Super administrators only.
 */
export function OtherSettings() {
  return (
    <div className="mg-option-tab mg-other">
      <NoticeCard />
      <div className="mg-other-branding">
        <SystemNameCard />
        <LogoCard />
      </div>
      <ContentCard optionKey="HomePageContent" textKey="homePage" icon={<IconHome />} pageQueryKey={homeKeys.content} testId="other-home" />
      <ContentCard optionKey="About" textKey="about" icon={<IconInfoCircle />} pageQueryKey={aboutKeys.content} testId="other-about" />
      <FooterCard />
    </div>
  );
}
