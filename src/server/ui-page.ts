export const VIEWER_HTML = "<!doctype html><title>agentrt</title>";
