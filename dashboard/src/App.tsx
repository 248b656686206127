import { AppShell } from './components/AppShell';
import { SystemStatusPage } from './pages/SystemStatusPage';

export function App() {
  return (
    <AppShell>
      <SystemStatusPage />
    </AppShell>
  );
}
