// The chat page's build: React, served by `npm run chat-ui` (vite) or built to dist/ for any static host.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  server: { host: "127.0.0.1", port: 5173 },
  preview: { host: "127.0.0.1" },
  // One page, one bundle: React and the SDK's client are most of it.
  build: { chunkSizeWarningLimit: 1024 },
});
