/*
 * Starts Swagger UI on the page's OpenAPI JSON (a file beside the page, no network beyond this origin).
 * When the docs are served over http(s) by a kernel, this origin becomes the first "server", so
 * "Try it out" talks to the kernel that serves the page. Swagger UI's online validator stays off.
 */
(() => {
  const root = document.getElementById("swagger-ui");
  if (!root || typeof window.SwaggerUIBundle !== "function") return;
  const url = root.getAttribute("data-spec");
  fetch(url)
    .then((r) => {
      if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
      return r.json();
    })
    .then((spec) => {
      if (location.protocol === "http:" || location.protocol === "https:") {
        const servers = (spec.servers || []).filter((s) => s.url !== location.origin);
        spec.servers = [
          { url: location.origin, description: "The server these docs are served from" },
          ...servers,
        ];
      }
      root.textContent = "";
      window.SwaggerUIBundle({
        spec,
        domNode: root,
        deepLinking: true,
        validatorUrl: null,
        defaultModelsExpandDepth: 0,
        docExpansion: "list",
        tryItOutEnabled: false,
        persistAuthorization: false,
        presets: [window.SwaggerUIBundle.presets.apis],
        layout: "BaseLayout",
      });
    })
    .catch((err) => {
      root.textContent = `Could not load the API description: ${err.message}`;
      root.className = "notice";
    });
})();
