// Starts Swagger UI on both OpenAPI documents, picked in its top bar. A file, not an inline
// script: the Content-Security-Policy allows only the site's own script files.
window.ui = window.SwaggerUIBundle({
  urls: [
    { url: '/v1/openapi.json', name: 'Commerce API (/v1)' },
    { url: '/api/auth/openapi.json', name: 'Auth API (/api/auth)' },
  ],
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [window.SwaggerUIBundle.presets.apis, window.SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
  // Swagger's public validator would be sent the document's address: not wanted.
  validatorUrl: null,
});
