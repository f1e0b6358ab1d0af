import { escapeHtml as e, PAGE_HEAD } from './html.js';

/**
 * The board's page: a frame the board script (/display/board.js) fills from /m/{slug}/menu.json and
 * keeps current from /m/{slug}/events. Theme and paging interval are query parameters the script reads
 * (`?theme=light`, `?interval=15`); the layout follows the screen (landscape or portrait).
 */
export function renderBoard(slug: string, name: string): string {
  return `${PAGE_HEAD}
<meta name="robots" content="noindex">
<title>${e(name)}: menu board</title>
<link rel="stylesheet" href="../display/board.css">
<script src="../display/board.js" defer></script>
</head>
<body class="board theme-dark" data-slug="${e(slug)}">
<main id="board">
<header class="board-head"><h1>${e(name)}</h1><p class="board-page" id="board-page"></p><p class="board-live" id="board-live">Connecting…</p></header>
<div class="board-groups" id="board-groups"><p class="board-loading">Loading the menu…</p></div>
</main>
</body>
</html>
`;
}
