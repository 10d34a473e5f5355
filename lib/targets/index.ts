/**
 * Targets: what the console works on, one at a time. The embedded sandbox's applications,
 * the remote platforms added in Settings (their tokens sealed at rest, never sent to a
 * browser), or the one platform the PLATFORM_* variables fix. The current one is each
 * administrator session's choice; an import job keeps the target it was made on.
 */
export {
  currentTarget,
  defaultTargetKey,
  listTargets,
  requireTarget,
  type TargetOption,
} from "./resolve";
export {
  candidateTarget,
  deleteRemoteTarget,
  findRemoteTargetRow,
  isTargetError,
  storeRemoteTarget,
  TargetError,
  type NewRemoteTarget,
} from "./store";
export { isEncrypted, openSecret, sealSecret, SecretBoxError } from "./secret-box";
