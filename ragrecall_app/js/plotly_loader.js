// The chart bundle (static/plotly-ragrecall.min.js), loaded once per page as a classic
// script: one promise of plotly.js on the window, shared by every chart and the preload
// (chart_code.py). The address is the server's static files (server.enableStaticServing),
// found from streamlit's own entry module (served at <base>/static/js/), so a base URL path
// is kept. A failed load is forgotten, so a later chart tries again.
window.ragrecallPlotly = window.ragrecallPlotly || (() => {
  let loading = null;
  return () => {
    if (loading) return loading;
    loading = new Promise((resolve, reject) => {
      const index = document.querySelector('script[type=module][src*="/static/js/index."]');
      const base = index ? new URL("../../", index.src) : new URL("./", document.baseURI);
      const script = document.createElement("script");
      script.src = new URL("app/static/plotly-ragrecall.min.js", base).href;
      script.async = true;
      script.onload = () => (window.Plotly ? resolve(window.Plotly) : script.onerror());
      script.onerror = () => {
        loading = null;
        script.remove();
        reject(new Error("plotly-ragrecall.min.js did not load"));
      };
      document.head.appendChild(script);
    });
    return loading;
  };
})();
