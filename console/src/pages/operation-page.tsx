/** @module One operation, followed live until it finishes. */
import { OperationView } from '../components/operation-view';

export function OperationPage({ operationId }: { operationId: string }) {
  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Operation {operationId}
      </h1>
      <OperationView operationId={operationId} />
    </section>
  );
}
