import { useEffect } from 'react';
import { Link } from 'react-router';

export function NotFoundPage() {
  useEffect(() => {
    document.title = 'Page not found · Web Push';
  }, []);
  return (
    <section className="panel narrow">
      <h1>Page not found</h1>
      <p>There is no page at this address. It may have moved, or the link may be mistyped.</p>
      <p>
        <Link to="/" className="button button-primary">
          Go to your apps
        </Link>
      </p>
    </section>
  );
}
