// The client's identity in `initialize.clientInfo` (a test keeps the version in sync with package.json).

/** The default `clientInfo.name`; it becomes the thread `originator` and prefixes the server's `userAgent`. */
export const CLIENT_NAME = "tandem-client-ts";

/** This package's version. */
export const CLIENT_VERSION = "0.1.0";
