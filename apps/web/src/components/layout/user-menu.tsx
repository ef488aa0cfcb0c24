import { Avatar, Button, Dropdown, Toast } from '@douyinfe/semi-ui';
import { IconExit, IconSetting } from '@douyinfe/semi-icons';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { logout } from '../../features/auth/api';
import { selfKeys } from '../../features/auth/queries';
import { useStatus } from '../../features/status/queries';
import { clearSessionUser, useSessionUser } from '../../lib/session';
import { SETTINGS_PATH } from '../../lib/console-paths';

export function UserMenu() {
  const { t } = useTranslation('layout');
  const user = useSessionUser();
  const status = useStatus();
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  if (!user) {
    return (
      <div className="mg-header-auth">
        <Link to="/login">
          <Button theme="borderless" type="tertiary">
            {t('header.login')}
          </Button>
        </Link>
        {status.register_enabled !== false && (
          <Link to="/register" className="mg-header-register">
            <Button theme="solid" type="primary">
              {t('header.register')}
            </Button>
          </Link>
        )}
      </div>
    );
  }

  const handleLogout = async () => {
    // The local session ends even if the server call fails: the user asked to leave.
    await logout().catch(() => undefined);
    clearSessionUser();
    queryClient.removeQueries({ queryKey: selfKeys.all });
    Toast.success(t('header.loggedOut'));
    navigate('/login');
  };

  const name = user.display_name || user.username;
  return (
    <Dropdown
      position="bottomRight"
      render={
        <Dropdown.Menu>
          <Dropdown.Item icon={<IconSetting />} onClick={() => navigate(SETTINGS_PATH)}>
            {t('header.settings')}
          </Dropdown.Item>
          <Dropdown.Item icon={<IconExit />} data-testid="logout" onClick={() => void handleLogout()}>
            {t('header.logout')}
          </Dropdown.Item>
        </Dropdown.Menu>
      }
    >
      <Button theme="borderless" type="tertiary" className="mg-user-button" data-testid="user-menu">
        <Avatar size="extra-small" color="blue">
          {name.slice(0, 1).toUpperCase()}
        </Avatar>
        <span className="mg-user-name">{name}</span>
      </Button>
    </Dropdown>
  );
}
