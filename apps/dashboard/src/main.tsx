import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { NetworkError } from './api/client.js';
import { App } from './app.js';
import './styles.css';

const queryClient = new QueryClient({
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
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <App />
      </BrowserRouter>
    </QueryClientProvider>
  </StrictMode>,
);
