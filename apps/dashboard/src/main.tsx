// First, so that every feature's stylesheet comes after the base it refines.
import './styles/base.css';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { ApiError, NetworkError } from './api/client.js';
import { App } from './app.js';
import { I18nProvider, servedLanguage } from './i18n/index.js';

/** A session that ended elsewhere (signed out, expired): back to sign-in instead of an error on every page. */
const onError = (error: unknown) => {
  if (error instanceof ApiError && (error.code === 'INVALID_SESSION' || error.code === 'UNAUTHORIZED')) {
    queryClient.setQueryData(['me'], null);
  }
};

const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      // One quiet retry for a dropped connection; an API error is shown at once.
      retry: (failures, error) => error instanceof NetworkError && failures < 1,
      staleTime: 5_000,
      refetchOnWindowFocus: false,
    },
  },
});

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root');
// Replaces the prerendered pricing markup (dist/pricing.html) with the live page.
createRoot(container).render(
  <StrictMode>
    <I18nProvider initial={servedLanguage()}>
      <QueryClientProvider client={queryClient}>
        <BrowserRouter>
          <App />
        </BrowserRouter>
      </QueryClientProvider>
    </I18nProvider>
  </StrictMode>,
);
