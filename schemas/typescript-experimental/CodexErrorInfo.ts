// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Machine-readable error category: a camelCase string, or a single-key object for
 * categories that carry data.
 */
export type CodexErrorInfo = "contextWindowExceeded" | "sessionBudgetExceeded" | "usageLimitExceeded" | "rateLimitExceeded" | "flexUnavailable" | "serverOverloaded" | "modelNotFound" | "policyCapacityUnavailable" | "inferenceHookDenied" | "cyberPolicy" | "misalignmentPolicyViolation" | "tooManyDenials" | "internalServerError" | "unauthorized" | "badRequest" | "threadRollbackFailed" | "sandboxError" | "other" | { "httpConnectionFailed": { 
/**
 * HTTP status, when there was one.
 */
httpStatusCode: number | null, } } | { "responseStreamConnectionFailed": { 
/**
 * HTTP status, when there was one.
 */
httpStatusCode: number | null, } } | { "responseStreamDisconnected": { 
/**
 * HTTP status, when there was one.
 */
httpStatusCode: number | null, } } | { "responseTooManyFailedAttempts": { 
/**
 * HTTP status of the last attempt, when there was one.
 */
httpStatusCode: number | null, } };
