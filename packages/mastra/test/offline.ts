// Imported first by every test: Mastra reports usage to PostHog when a Mastra instance starts and
// may fetch provider lists; these tests must never reach the network.
process.env.MASTRA_TELEMETRY_DISABLED = '1'
process.env.MASTRA_OFFLINE = '1'
