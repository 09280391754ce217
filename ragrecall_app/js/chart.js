// One dashboard chart (ragrecall_app/chart.py): a plotly figure drawn into the element's own
// <div class="ragrecall-chart">, redrawn only when its figure changes, and a click on a
// point sent to Python as the "selection" trigger, shaped as st.plotly_chart's selection.
// Nothing here builds HTML from the figure: plotly draws it (its text escaped by the
// figures' builders in ragrecall_core/views).

const point = (p) => ({
  curve_number: p.curveNumber,
  point_number: p.pointNumber,
  point_index: p.pointIndex,
  x: p.x,
  y: p.y,
  customdata: p.customdata,
});

// the figure arrives as data, parsed once by streamlit, which keeps the same object while
// the element's data is the same: a rerun that leaves the figure as it was draws nothing
const draw = (Plotly, div, config) => {
  const figure = div.ragrecallFigure;
  if (div.ragrecallDrawn === figure) return;
  // the app's own font and text colour where the figure names none, as streamlit's theme
  // gave its charts
  const layout = figure.layout || {};
  const page = getComputedStyle(div);
  layout.font = { family: page.fontFamily, color: page.color, ...(layout.font || {}) };
  div.ragrecallDrawn = figure;
  Plotly.react(div, figure.data || [], layout, config);
};

// once per element: a column that changes width (the window, the sidebar shown or hidden)
// redraws the chart at its width (a change of its height, its own drawing, does not); a
// click on a point, where Python asked for clicks, is sent as the "selection" trigger
const watch = (Plotly, div, clicks, setTriggerValue) => {
  if (div.ragrecallWatched) return;
  div.ragrecallWatched = true;
  let width = div.clientWidth;
  new ResizeObserver(() => {
    if (div.clientWidth === width) return;
    width = div.clientWidth;
    Plotly.Plots.resize(div);
  }).observe(div);
  if (!clicks) return;
  div.on("plotly_click", (event) => {
    setTriggerValue("selection", { points: (event.points || []).map(point) });
  });
};

export default function ({ parentElement, data, setTriggerValue }) {
  const div = parentElement.querySelector(".ragrecall-chart");
  div.ragrecallFigure = data.figure;
  window.ragrecallPlotly().then(
    (Plotly) => {
      draw(Plotly, div, data.config);
      watch(Plotly, div, data.clicks, setTriggerValue);
    },
    () => {
      div.textContent =
        "This chart could not load plotly.js from the server's static files: " +
        "start the dashboard with `ragrecall ui`, which serves them.";
    },
  );
  return () => window.Plotly && window.Plotly.purge(div);
}
