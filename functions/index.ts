/**
 * @module Entry point of the Functions app (package.json `main`: dist/functions/index.js). Telemetry
 * comes first so that Azure Monitor's instrumentation is in place before the SDKs load; then each
 * module registers its functions.
 */
import './telemetry';
import './operation-orchestrator';
import './apply-operation-batch';
import './activities';
import './event-delivery-orchestrator';
import './event-delivery';
import './timer-orchestrator';
import './timer-activities';
import './console';
import './http';
import './retention';
import './recovery';
