// Starts Swagger UI (ninja's copy, loaded before this file) on the API's schema; a file, not
// an inline script, so the Content-Security-Policy holds on this page too.
"use strict";

(function () {
  const root = document.getElementById("swagger-ui");
  if (!root || typeof window.SwaggerUIBundle !== "function") {
    return;
  }
  window.SwaggerUIBundle({
    url: root.dataset.openapiUrl,
    domNode: root,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    // A deep link would be a link inside the button that opens an operation (axe: nested-interactive).
    deepLinking: false,
    // Swagger UI would otherwise send the schema to validator.swagger.io for a badge.
    validatorUrl: null,
  });
})();
