extension ReportPage {
    /// Okabe–Ito colours (told apart by the common colour blindnesses), a light and a dark set chosen by
    /// `prefers-color-scheme`, and print rules: black on white, charts and their tables never split.
    static let stylesheet = """
        :root{--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--rule:#d8dde3;--panel:#f6f8fa;--a:#0072b2;--b:#e69f00;--c:#d55e00;--hatch-bg:#fbe3d3}
        @media (prefers-color-scheme:dark){:root{--bg:#15181c;--fg:#e8eaed;--muted:#a2aab4;--rule:#39414b;--panel:#1e2329;\
        --a:#56b4e9;--b:#f0e442;--c:#ff8c42;--hatch-bg:#3a2616}}
        *{box-sizing:border-box}
        html{background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
        body{margin:0}
        main{max-width:1040px;margin:0 auto;padding:24px 28px 8px}
        @media (max-width:600px){main{padding:14px 12px 8px}footer{padding:0 12px 16px}h1{font-size:1.5rem}}
        h1{font-size:1.9rem;margin:0 0 2px;letter-spacing:-.01em}
        h2{font-size:1.4rem;margin:40px 0 8px;padding-bottom:4px;border-bottom:2px solid var(--fg)}
        h3{font-size:1.2rem;margin:28px 0 2px}
        h4{font-size:1rem;margin:20px 0 6px;color:var(--muted)}
        .meta,.lede,.note,.empty{color:var(--muted);margin:0 0 10px}
        .lede{font-variant-numeric:tabular-nums}
        .meta,footer,h1,h3,.lede,.insights{overflow-wrap:anywhere}
        nav{display:flex;flex-wrap:wrap;gap:4px 14px;margin:12px 0 0;font-size:.9rem}
        a{color:var(--a)}
        .tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:10px;margin:14px 0}
        .tile{background:var(--panel);border:1px solid var(--rule);border-radius:8px;padding:10px 12px}
        .tile dt{font-size:.8rem;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
        .tile dd{margin:0}.tile .big{display:block;font-size:1.7rem;font-weight:650;font-variant-numeric:tabular-nums}
        .tile .small{font-size:.82rem;color:var(--muted)}
        article{border-top:1px solid var(--rule);margin-top:26px}
        h2+article{border-top:none;margin-top:0}
        figure{margin:14px 0}
        figcaption{font-weight:600;margin-bottom:4px}
        .panel figcaption{font-weight:500;font-size:.88rem}
        svg.chart{display:block;max-width:none;overflow:visible}
        .chart-box{overflow-x:auto;max-width:100%}
        svg.chart text{fill:var(--muted);font-size:11px;font-variant-numeric:tabular-nums}
        svg.chart .value{fill:var(--fg);font-weight:600}
        svg.chart .label{fill:var(--fg)}
        svg.chart .no-data{font-style:italic;font-size:12px}
        .grid line{stroke:var(--rule);stroke-width:1}
        .baseline{stroke:var(--muted);stroke-width:1}
        .s-a{--s:var(--a)}.s-b{--s:var(--b)}.s-c{--s:var(--c)}
        .bar{fill:var(--s)}
        .s-c .bar,.s-c .swatch{fill:url(#hatch);stroke:var(--c);stroke-width:1}
        .hatch-ground{fill:var(--hatch-bg)}.hatch-line{stroke:var(--c);stroke-width:2.5}
        .line{fill:none;stroke:var(--s);stroke-width:2.5;stroke-linejoin:round;stroke-linecap:round}
        .s-c .line{stroke-dasharray:7 4;stroke-width:2}
        .dot{fill:var(--s);stroke:var(--bg);stroke-width:1.2}
        .legend{list-style:none;display:flex;flex-wrap:wrap;gap:4px 18px;margin:0 0 4px;padding:0;font-size:.85rem;color:var(--muted)}
        .legend li{display:flex;align-items:center;gap:6px}
        .key .swatch{fill:var(--s)}.key line{display:none}
        .key.s-c .swatch{fill:url(#hatch);stroke:var(--c);stroke-width:1}
        figure:has(.line) .key .swatch{display:none}
        figure:has(.line) .key line{display:inline;stroke:var(--s);stroke-width:2.5}
        figure:has(.line) .key.s-c line{stroke-dasharray:6 3}
        .pair{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,380px),1fr));gap:0 40px}
        @media (max-width:600px){.pair,.multiples,.compare{grid-template-columns:minmax(0,1fr)}}
        .multiples{display:grid;grid-template-columns:repeat(auto-fill,minmax(184px,1fr));gap:6px 16px}
        .season-mark line{stroke:var(--fg);stroke-width:1;stroke-dasharray:3 3}.season-mark text{fill:var(--fg)}
        .multiples .panel{margin:6px 0}
        .compare{grid-template-columns:repeat(auto-fill,minmax(240px,1fr))}
        details{margin:6px 0 10px;font-size:.9rem}
        summary{cursor:pointer;color:var(--a)}
        .table-wrap{overflow-x:auto;max-width:100%}
        table.data{border-collapse:collapse;width:100%;font-size:.86rem;margin:6px 0}
        table.data caption{text-align:left;color:var(--muted);font-size:.8rem;padding:2px 0}
        table.data th{text-align:left;font-weight:600;border-bottom:1.5px solid var(--fg);padding:4px 8px;white-space:nowrap}
        table.data td{border-bottom:1px solid var(--rule);padding:3px 8px;vertical-align:top}
        table.data td[data-col=game_date],table.data td[data-col=date]{white-space:nowrap}
        table.data td[data-col=opponent]{min-width:7em}table.data td[data-col=reason],table.data td[data-col=error],table.data td[data-col=note]{min-width:14em}
        table.data td.few::after{content:"*";color:var(--c)}
        tr.over-rule td[data-col=game_date]::before{content:"! ";color:var(--c);font-weight:700}
        .sport-tag{font-size:.75rem;font-weight:500;color:var(--muted);border:1px solid var(--rule);border-radius:4px;padding:0 4px;vertical-align:middle}
        .season{border-left:3px solid var(--rule);padding-left:10px;margin:18px 0}
        .insights ul{margin:0 0 10px;padding-left:20px}.insights li{margin:3px 0}
        .filters{display:flex;flex-wrap:wrap;gap:6px 18px;margin:8px 0}
        .filters fieldset{border:1px solid var(--rule);border-radius:6px;padding:4px 10px;margin:0;display:flex;flex-wrap:wrap;align-items:center;gap:4px 10px}
        .filters legend{font-size:.8rem;color:var(--muted);padding:0 4px}
        .filters .opt{font-size:.9rem;white-space:nowrap;display:inline-flex;align-items:center;gap:3px}
        ul.sheets{margin:4px 0;padding-left:20px;overflow-wrap:anywhere}
        table.data .num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
        table.data tbody tr:nth-child(even){background:var(--panel)}
        svg.defs{position:absolute;width:0;height:0}
        footer{max-width:1040px;margin:24px auto;padding:0 28px 24px;color:var(--muted);font-size:.8rem}
        @media print{
        :root{--bg:#fff;--fg:#000;--muted:#444;--rule:#bbb;--panel:#f3f3f3;--a:#0072b2;--b:#e69f00;--c:#d55e00;--hatch-bg:#fbe3d3}
        html{font-size:11pt}main{max-width:none;padding:0}nav,.filters{display:none}
        *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
        figure,.tile,tr,.panel{break-inside:avoid}h2,h3,h4{break-after:avoid}
        details::details-content{content-visibility:visible;display:contents}summary{display:none}
        @page{margin:14mm}}
        """
}
