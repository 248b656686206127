/** Set by vite.config.ts at build time: the social sign-in providers configured there. */
declare const __SOCIAL_PROVIDERS__: string[];
