//! Static HTML pages of a book, laid out the way KataGo's viewer lays them out: one page per node in
//! `XX/<hash>.html` (XX = characters 8–9 of the hash), `root/root.html`, a shared `book.js` and
//! `book.css`. Each page holds its data (board, moves sorted as KataGo sorts them, links to children with
//! the symmetry that keeps the reader's orientation) and the script draws the board with the book moves
//! numbered and coloured by how much worse they are than the best, and the table from Black's view.
//!
//! The site is built in a folder beside the target and swapped in whole (`crate::files::StagedDir`): a
//! full disk or a kill leaves the previous site as it was. A target folder that holds something other
//! than a site is refused rather than replaced.

use crate::book::dag::{Book, NodeId, OrientedNode};
use crate::book::view::node_table;
use crate::go::{Color, Move, Point, Symmetry};
use std::fmt::Write as _;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum HtmlError {
    #[error("cannot write {file}: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Staging(std::io::Error),
    #[error(
        "{dir} holds files but no tengen site (no root/root.html); give a new folder or an earlier export"
    )]
    NotASite { dir: String },
}

fn page_path(book: &Book, id: NodeId) -> String {
    if id == book.root() {
        "root/root.html".to_string()
    } else {
        let h = book.node(id).hash.to_string();
        format!("{}/{}.html", &h[8..10], h)
    }
}

fn write(path: &Path, text: &str) -> Result<(), HtmlError> {
    std::fs::write(path, text).map_err(|source| HtmlError::Io {
        file: path.display().to_string(),
        source,
    })
}

/// Writes the pages into `dir` (built beside it, then swapped in); returns how many node pages were
/// written.
pub fn export(book: &Book, dir: &Path, min_visits: f64) -> Result<usize, HtmlError> {
    if let Ok(mut entries) = std::fs::read_dir(dir)
        && entries.next().is_some()
        && !dir.join("root/root.html").is_file()
    {
        return Err(HtmlError::NotASite {
            dir: dir.display().to_string(),
        });
    }
    let staged = crate::files::StagedDir::new(dir).map_err(HtmlError::Staging)?;
    let written = write_site(book, staged.path(), min_visits)?;
    staged.commit().map_err(HtmlError::Staging)?;
    Ok(written)
}

fn write_site(book: &Book, dir: &Path, min_visits: f64) -> Result<usize, HtmlError> {
    let mkdir = |p: &Path| {
        std::fs::create_dir_all(p).map_err(|source| HtmlError::Io {
            file: p.display().to_string(),
            source,
        })
    };
    mkdir(&dir.join("root"))?;
    for i in 0..256 {
        mkdir(&dir.join(format!("{i:02X}")))?;
    }
    let size = book.meta.size;
    let mut js = String::new();
    let _ = writeln!(
        js,
        "const rulesLabel = \"{} komi {}\";",
        book.meta.rules, book.meta.rules.komi
    );
    let _ = writeln!(
        js,
        "const bSizeX = {};\nconst bSizeY = {};",
        size.width(),
        size.height()
    );
    js.push_str(BOOK_JS);
    write(&dir.join("book.js"), &js)?;
    write(&dir.join("book.css"), BOOK_CSS)?;
    let mut written = 0;
    for (id, node) in book.nodes() {
        if node.values.visits < min_visits && id != book.root() {
            continue;
        }
        // A node whose history cannot be rebuilt has no board to draw; `tengen book verify` reports it.
        let Ok(game) = book.game_at(id) else { continue };
        let view = OrientedNode {
            id,
            to_view: Symmetry::IDENTITY,
        };
        let table = node_table(book, view);
        let mut data = String::new();
        let _ = writeln!(
            data,
            "const nextPla = {};",
            if node.to_move == Color::Black { 1 } else { 2 }
        );
        match node.parents.get(node.cost.best_parent as usize) {
            Some(link) => {
                let sym = book
                    .node(link.parent)
                    .edge_for(link.mv)
                    .map(|e| e.to_child.id())
                    .unwrap_or(0);
                let _ = writeln!(
                    data,
                    "const pLink = '../{}';\nconst pSym = {sym};",
                    page_path(book, link.parent)
                );
            }
            None => data.push_str("const pLink = '';\nconst pSym = 0;\n"),
        }
        data.push_str("const board = [");
        for y in 0..size.height() {
            for x in 0..size.width() {
                let c = match game.board().color_at(Point::new(x, y)) {
                    Some(Color::Black) => 1,
                    Some(Color::White) => 2,
                    None => 0,
                };
                let _ = write!(data, "{c},");
            }
        }
        data.push_str("];\nconst links = {");
        let mut syms = String::from("const linkSyms = {");
        let mut moves: Vec<(usize, Move)> = size
            .points()
            .map(|p| (size.row_major(p), Move::Play(p)))
            .collect();
        moves.push((size.area(), Move::Pass));
        for (index, mv) in moves {
            if let Ok(child) = book.follow(view, mv)
                && (book.node(child.id).values.visits >= min_visits)
            {
                let _ = write!(data, "{index}:'../{}',", page_path(book, child.id));
                let _ = write!(syms, "{index}:{},", child.to_view.id());
            }
        }
        let _ = writeln!(data, "}};\n{syms}}};");
        data.push_str("const moves = [");
        for r in &table.rows {
            data.push('{');
            if r.is_other {
                data.push_str("'move':'other',");
            } else if r.moves == [Move::Pass] {
                data.push_str("'move':'pass',");
            } else {
                data.push_str("'xy':[");
                for m in &r.moves {
                    if let Move::Play(p) = m {
                        let _ = write!(data, "[{},{}],", p.x(), p.y());
                    }
                }
                data.push_str("],");
            }
            let _ = write!(
                data,
                "'p':{:.4},'wl':{:.4},'ssM':{:.2},'wlRad':{:.4},'sRad':{:.2},'v':{:.0},'av':{:.0},'cost':{:.4}}},",
                r.prior,
                r.white_win_loss,
                r.white_score,
                r.win_loss_radius,
                r.score_radius,
                r.visits,
                r.adjusted_visits,
                r.cost
            );
        }
        data.push_str("];\n");
        let html = format!(
            "<html>\n<head>\n<meta charset=\"utf-8\">\n<title>tengen book {}</title>\n<link rel=\"stylesheet\" href=\"../book.css\">\n<script>\n{data}</script>\n<script type=\"text/javascript\" src=\"../book.js\"></script>\n</head>\n<body>\n</body>\n</html>\n",
            table.hash
        );
        write(&dir.join(page_path(book, id)), &html)?;
        written += 1;
    }
    Ok(written)
}

const BOOK_CSS: &str = r#"body { font-family: sans-serif; margin: 1em; background: #fafafa; }
svg { display: block; margin-bottom: 0.5em; }
table { border-collapse: collapse; }
td, th { padding: 2px 8px; text-align: right; border-bottom: 1px solid #ddd; }
th { background: #eee; }
a { color: #225; }
.legend { max-width: 48em; color: #444; font-size: 90%; }
"#;

/// The page script: draws the board in the orientation asked for by `?symmetry=`, numbers the book moves
/// by rank with a colour for how much worse than the best they are, and lists the moves for Black's view.
const BOOK_JS: &str = r##"
const params = new URLSearchParams(window.location.search);
const viewSym = Math.max(0, Math.min(7, parseInt(params.get('symmetry') || '0') || 0));
function symXY(s, x, y) {
  if (s & 2) x = bSizeX - 1 - x;
  if (s & 1) y = bSizeY - 1 - y;
  return (s & 4) ? [y, x] : [x, y];
}
function composeSym(a, b) {
  const probes = [[0, 1], [1, 0], [0, 0]];
  for (let t = 0; t < 8; t++) {
    if (probes.every(([x, y]) => { const [ax, ay] = symXY(a, x, y); const [bx, by] = symXY(b, ax, ay); const [tx, ty] = symXY(t, x, y); return bx == tx && by == ty; })) return t;
  }
  return 0;
}
function withSym(link, sym) { return link + '?symmetry=' + sym; }
function badnessColor(b) {
  const stops = [[0, [0, 200, 255]], [0.2, [0, 200, 80]], [0.4, [230, 220, 0]], [0.6, [255, 150, 0]], [0.8, [230, 30, 30]], [1, [110, 0, 0]]];
  b = Math.max(0, Math.min(1, b));
  for (let i = 1; i < stops.length; i++) {
    if (b <= stops[i][0]) {
      const [b0, c0] = stops[i - 1], [b1, c1] = stops[i];
      const f = (b - b0) / (b1 - b0);
      return 'rgb(' + c0.map((c, k) => Math.round(c + f * (c1[k] - c))).join(',') + ')';
    }
  }
  return 'rgb(110,0,0)';
}
const sign = nextPla == 1 ? -1 : 1;
const best = moves.length > 0 ? moves[0] : null;
function badness(m) {
  if (!best) return 0;
  const wlLoss = sign * (best.wl - m.wl) * 0.5;
  const scoreLoss = sign * (best.ssM - m.ssM);
  return Math.max(0, wlLoss * 2.5 + scoreLoss * 0.08 + (m.p < 0.01 ? 0.05 : 0));
}
const letters = 'ABCDEFGHJKLMNOPQRSTUVWXYZ';
function draw() {
  const cell = 40, pad = 30;
  const w = pad * 2 + cell * (bSizeX - 1), h = pad * 2 + cell * (bSizeY - 1);
  let svg = '<svg width="' + w + '" height="' + h + '"><rect width="' + w + '" height="' + h + '" fill="#dcb35c"/>';
  for (let i = 0; i < bSizeX; i++) svg += '<line x1="' + (pad + i * cell) + '" y1="' + pad + '" x2="' + (pad + i * cell) + '" y2="' + (h - pad) + '" stroke="black"/>' + '<text x="' + (pad + i * cell - 4) + '" y="14" font-size="12">' + letters[i] + '</text>';
  for (let j = 0; j < bSizeY; j++) svg += '<line x1="' + pad + '" y1="' + (pad + j * cell) + '" x2="' + (w - pad) + '" y2="' + (pad + j * cell) + '" stroke="black"/>' + '<text x="4" y="' + (pad + j * cell + 4) + '" font-size="12">' + (bSizeY - j) + '</text>';
  for (let y = 0; y < bSizeY; y++) for (let x = 0; x < bSizeX; x++) {
    const c = board[x + y * bSizeX];
    if (c == 0) continue;
    const [vx, vy] = symXY(viewSym, x, y);
    svg += '<circle cx="' + (pad + vx * cell) + '" cy="' + (pad + vy * cell) + '" r="' + (cell * 0.47) + '" fill="' + (c == 1 ? 'black' : 'white') + '" stroke="black"/>';
  }
  moves.forEach((m, rank) => {
    if (!m.xy) return;
    for (const [x, y] of m.xy) {
      const [vx, vy] = symXY(viewSym, x, y);
      const idx = x + y * bSizeX;
      let circle = '<circle cx="' + (pad + vx * cell) + '" cy="' + (pad + vy * cell) + '" r="' + (cell * 0.4) + '" fill="' + badnessColor(badness(m)) + '" stroke="black"/>' + '<text x="' + (pad + vx * cell) + '" y="' + (pad + vy * cell + 5) + '" text-anchor="middle" font-size="14">' + (rank + 1) + '</text>';
      if (links[idx]) circle = '<a href="' + withSym(links[idx], composeSym(linkSyms[idx], viewSym)) + '">' + circle + '</a>';
      svg += circle;
    }
  });
  svg += '</svg>';
  return svg;
}
function moveName(m) {
  if (m.move) return m.move;
  return m.xy.map(([x, y]) => { const [vx, vy] = symXY(viewSym, x, y); return letters[vx] + (bSizeY - vy); }).join(' ');
}
window.onload = function () {
  let html = '<h2>tengen opening book ' + bSizeX + 'x' + bSizeY + '</h2><p>' + rulesLabel + ' &middot; <a href="' + withSym('../root/root.html', viewSym) + '">root</a>';
  if (pLink) html += ' &middot; <a href="' + withSym(pLink, composeSym(pSym, viewSym)) + '">parent</a>';
  html += '</p>' + draw() + '<p><b>' + (nextPla == 1 ? 'Black' : 'White') + ' to play</b></p>';
  html += '<table><tr><th>#</th><th>Move</th><th>BWin%</th><th>Black score</th><th>Win% ±</th><th>Score ±</th><th>Prior%</th><th>Visits</th><th>AVisits</th></tr>';
  moves.forEach((m, i) => {
    const rad = (x, k, d) => x == 0 ? '-' : (x * k).toFixed(d);
    html += '<tr style="background:' + badnessColor(badness(m)) + '33"><td>' + (i + 1) + '</td><td>' + moveName(m) + '</td><td>' + ((1 - m.wl) * 50).toFixed(1) + '</td><td>' + (-m.ssM).toFixed(2) + '</td><td>' + rad(m.wlRad, 50, 1) + '</td><td>' + rad(m.sRad, 1, 2) + '</td><td>' + (m.p * 100).toFixed(2) + '</td><td>' + m.v + '</td><td>' + m.av + '</td></tr>';
  });
  html += '</table><p class="legend">Values are Black\'s. Visits count a transposed position once for every path to it; AVisits discount weaker moves that received far more visits than better ones. Colours: how much worse than the top move (win rate, score, prior). Click a numbered move to follow it; the orientation is kept.</p>';
  document.body.innerHTML = html;
};
"##;
