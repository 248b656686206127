import { EntityPage } from '../components/EntityPage';
import { Link } from '../router';

export default function NotFoundPage() {
  return (
    <EntityPage title="Page not found">
      <p>
        Nothing lives at this address. <Link to="/">Go to the home page</Link>.
      </p>
    </EntityPage>
  );
}
