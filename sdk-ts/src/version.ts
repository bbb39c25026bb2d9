/** The SDK's version, sent as `User-Agent: cap-sdk/<version>`. A test keeps it equal to package.json. */
export const SDK_VERSION = "1.0.0-rc.0";
