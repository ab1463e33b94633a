export function EmptyState({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="empty">
      <h2>{title}</h2>
      {children}
    </div>
  );
}

/** An honest placeholder: says what the page will show and what to do first; never invented numbers. */
export function NotBuiltYet({ title, what, first }: { title: string; what: string; first: string }) {
  return (
    <>
      <div className="page-head">
        <div>
          <h1>{title}</h1>
        </div>
      </div>
      <EmptyState title={`Nothing to show yet`}>
        <p>This page will show {what}.</p>
        <p>{first}</p>
      </EmptyState>
    </>
  );
}
