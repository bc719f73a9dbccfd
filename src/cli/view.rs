//! The views of a run for people (`--view` in `run` and `render`; `run --render` and `render --format` are its aliases): a lane timeline, a
//! Mermaid sequence diagram, the same diagram as an SVG picture, or the interactive HTML viewer.

use clap::ValueEnum;
use locksim_sim::trace::TraceEvent;

use crate::render::svg::{TimeAxis, svg_on};
use crate::render::{Cast, Marks, Page, html, lanes, mermaid};

/// A view of a run for people (`--view` in `run` and `render`; `run --render` and `render --format` are its aliases).
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum View {
    /// A timeline with a lane per node, true time and local clocks side by side.
    Text,
    /// A Mermaid sequence diagram (the content of a ```mermaid block, or a .mmd file).
    Mermaid,
    /// The same sequence diagram as a standalone SVG picture (a .svg file): it opens in any
    /// browser or image viewer, without Mermaid, and shows true time beside every row.
    Svg,
    /// The interactive trace viewer: one self-contained HTML page (a .html file) with a lane per
    /// node, each client's lease as it believes it beside each server's key, the clocks at a
    /// cursor stepped with the arrow keys, zoom, filters and the verdicts.
    Html,
}

/// Mermaid's default `maxTextSize`: over it, Mermaid (and so GitHub) draws an error instead.
const MERMAID_MAX_TEXT: usize = 50_000;

impl View {
    /// The view's name, as `--view` takes it.
    pub(super) fn name(self) -> &'static str {
        match self {
            View::Text => "text",
            View::Mermaid => "mermaid",
            View::Svg => "svg",
            View::Html => "html",
        }
    }

    /// The time axis `axis` asks for (`--time-axis`), checked against the view: only the SVG
    /// picture has one, so asking another view for it is an error, not a silent no-op.
    pub(super) fn time_axis(view: Option<View>, axis: Option<TimeAxis>) -> Result<TimeAxis, String> {
        match (view, axis) {
            (_, None) => Ok(TimeAxis::Rows),
            (Some(View::Svg), Some(axis)) => Ok(axis),
            (other, Some(_)) => Err(format!(
                "--time-axis applies to the svg view only, not to {}: add `--view svg`",
                other.map_or("the verdicts and timeline", View::name)
            )),
        }
    }

    /// `axis` is drawn only by the SVG picture, `page` (the caption and verdicts) only by the
    /// HTML viewer.
    pub(super) fn render(
        self,
        events: &[TraceEvent],
        cast: &Cast,
        marks: &Marks,
        axis: TimeAxis,
        page: &Page,
    ) -> String {
        match self {
            View::Text => lanes(events, marks),
            View::Mermaid => {
                let diagram = mermaid(events, cast, marks);
                let chars = diagram.chars().count();
                if chars > MERMAID_MAX_TEXT {
                    eprintln!(
                        "warning: the diagram has {chars} characters, over Mermaid's default maxTextSize \
                         ({MERMAID_MAX_TEXT}): GitHub will not draw it"
                    );
                }
                diagram
            }
            View::Svg => svg_on(events, cast, marks, axis),
            View::Html => html(events, cast, page),
        }
    }
}
