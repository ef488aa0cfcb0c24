import { Card, Typography } from '@douyinfe/semi-ui';
import type { ReactNode } from 'react';
import { useStatus } from '../../status/queries';

interface AuthCardProps {
  title: string;
  subtitle?: string;
  children: ReactNode;
  footer?: ReactNode;
}

/** The shared frame of login, register and password reset: brand mark, title, form, links. */
export function AuthCard({ title, subtitle, children, footer }: AuthCardProps) {
  const status = useStatus();
  return (
    <div className="mg-auth-page">
      <Card className="mg-auth-card" bordered shadows="always">
        <div className="mg-auth-brand">
          <img src={status.logo || '/logo.svg'} alt="" className="mg-auth-logo" />
          <Typography.Title heading={3} className="mg-auth-title">
            {title}
          </Typography.Title>
          {subtitle && <Typography.Text type="tertiary">{subtitle}</Typography.Text>}
        </div>
        {children}
        {footer && <div className="mg-auth-footer">{footer}</div>}
      </Card>
    </div>
  );
}
