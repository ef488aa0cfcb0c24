import { LocaleProvider } from '@douyinfe/semi-ui';
import en_US from '@douyinfe/semi-ui/lib/es/locale/source/en_US';
import zh_CN from '@douyinfe/semi-ui/lib/es/locale/source/zh_CN';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { useTranslation } from 'react-i18next';
import { RouterProvider } from 'react-router';
import './i18n';
import { normalizeLanguage } from './i18n';
import { SecurityVerificationHost } from './components/security-verification/security-verification-host';
import { setUnauthorizedHandler } from './lib/api-client';
import './lib/theme';
import { createAppRouter } from './routes';
import './styles/global.css';
import './styles/auth.css';
import './styles/home.css';
import './styles/markdown.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: { refetchOnWindowFocus: false, retry: 1 },
  },
});

const router = createAppRouter();

// The API client already dropped the stored user; navigating in-app keeps the query cache and toasts.
setUnauthorizedHandler(() => {
  queryClient.removeQueries({ queryKey: ['user'] });
  void router.navigate('/login?expired=true', { replace: true });
});

/** Semi's own component texts (pagination, modals, date pickers) follow the console language. */
function SemiLocale({ children }: { children: ReactNode }) {
  const { i18n } = useTranslation();
  const locale = normalizeLanguage(i18n.language) === 'en' ? en_US : zh_CN;
  return <LocaleProvider locale={locale}>{children}</LocaleProvider>;
}

const container = document.getElementById('root');
if (!container) throw new Error('index.html is missing the #root element');

createRoot(container).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SemiLocale>
        <RouterProvider router={router} />
        <SecurityVerificationHost />
      </SemiLocale>
    </QueryClientProvider>
  </StrictMode>,
);
