// The Embedded App SDK as the board page imports it: the package's own exports, unchanged.
export * from "@discord/embedded-app-sdk";
