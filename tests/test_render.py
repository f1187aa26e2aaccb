import collections
import io
import itertools
import json
import os
import pathlib
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import attrs
import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matrix
from matrix import NoRunnerError, RemovedFeatureError, UsageError
from matrix.cli import run
from matrix.render import DEFAULT_TABLES, FORMATS, TABLES, json_schema, render
from matrix.resolver import resolve
from matrix.strategies import configs, matrices

from .test_check import _ATOMS, _FIELDS, _small_matrices, _with_roles

DATA = pathlib.Path(__file__).parent / "data"
GOLDEN = DATA / "golden"
KITCHEN = matrix.load(DATA / "valid" / "kitchen_sink.toml")
DEFAULT = matrix.default()
EXTENSIONS = {"markdown": "md", "rst": "rst", "html": "html", "json": "json"}
CASES = [("kitchen_sink", KITCHEN, None), ("default", DEFAULT, None), ("default-0.31.0", DEFAULT, "0.31.0")]


# Golden files only for a matrix a reader reviews whole: the kitchen sink, every kind of cell
# in a page of each format. The default matrix is held by the rows below that show each
# construct it adds (groups, removals, histories with links, refusals, lifecycle badges), and by
# its counts, so that an edit of features.toml changes a few lines of tests, not 20,000.
@pytest.mark.parametrize("format", FORMATS)
def test_golden_files(format):
    text = render(KITCHEN, format=format, tables=TABLES)  # every table, the pairs too
    path = GOLDEN / f"kitchen_sink.{EXTENSIONS[format]}"
    if os.environ.get("MATRIX_UPDATE_GOLDEN") == "1":  # regenerate after a deliberate change
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")
    assert render(KITCHEN, format=format, tables=TABLES) == text  # deterministic


def _row(text, format, start):
    """The lines of the one row (or note, or paragraph) of *text* whose first line starts with
    *start*: in Markdown that line, in reStructuredText the list-table item with its cells, in
    HTML the lines up to the row's ``</tr>`` (or the ``</li>``, ``</p>``)."""
    lines = text.splitlines()
    [i] = [i for i, line in enumerate(lines) if line.startswith(start)]
    end = i + 1
    if format == "rst":
        while end < len(lines) and lines[end].startswith("     - "):
            end += 1
    elif format == "html":
        while not lines[end - 1].endswith(("</tr>", "</li>", "</p>")):
            end += 1
    return lines[i:end]


#: (version, table, what the row shows, {format: (how its first line starts, its exact lines)}).
DEFAULT_ROWS = [
    ('0.33.0', 'support', 'stock torch.compile: a since in the history (from 0.32.0 V2 runs it, adjusted: no caveat)', {
        'markdown': ('| stock torch.compile |', [
            "| stock torch.compile | `compilation_config.mode == 'STOCK_TORCH_COMPILE'` | ❌ no → ✅ yes since 0.32.0 | ✅ yes |  |",
        ]),
        'rst': ('   * - stock torch.compile', [
            '   * - stock torch.compile',
            "     - ``compilation_config.mode == 'STOCK_TORCH_COMPILE'``",
            '     - ❌ no → ✅ yes since 0.32.0',
            '     - ✅ yes',
            '     -  ',
        ]),
        'html': ('<th scope="row" id="feature-stock_torch_compile">', [
            '<th scope="row" id="feature-stock_torch_compile">stock torch.compile</th>',
            '<td><code>compilation_config.mode == &#x27;STOCK_TORCH_COMPILE&#x27;</code></td>',
            '<td class="cell status-yes"><span title="no: not supported"><span aria-hidden="true">❌</span> <span class="word">no</span></span> → <span title="yes: supported"><span aria-hidden="true">✅</span> <span class="word">yes</span></span> since 0.32.0</td>',
            '<td class="cell status-yes"><span title="yes: supported"><span aria-hidden="true">✅</span> <span class="word">yes</span></span></td>',
            '<td class="lifecycle"></td>',
            '</tr>',
        ]),
    }),
    ('0.33.0', 'support', "elastic EP: the feature's link, a link on a later statement", {
        'markdown': ('| [elastic expert', [
            '| [elastic expert parallelism](<https://github.com/vllm-project/vllm/issues/53933>) | `parallel_config.enable_elastic_ep` | ❌ no → [✅ yes](<https://github.com/vllm-project/vllm/pull/53934>) since 0.32.0 | ✅ yes |  |',
        ]),
        'rst': ('   * - `elastic expert', [
            '   * - `elastic expert parallelism <https://github.com/vllm-project/vllm/issues/53933>`__',
            '     - ``parallel_config.enable_elastic_ep``',
            '     - ❌ no → `✅ yes <https://github.com/vllm-project/vllm/pull/53934>`__ since 0.32.0',
            '     - ✅ yes',
            '     -  ',
        ]),
        'html': ('<th scope="row" id="feature-elastic_ep">', [
            '<th scope="row" id="feature-elastic_ep"><a href="https://github.com/vllm-project/vllm/issues/53933">elastic expert parallelism</a></th>',
            '<td><code>parallel_config.enable_elastic_ep</code></td>',
            '<td class="cell status-yes"><span title="no: not supported"><span aria-hidden="true">❌</span> <span class="word">no</span></span> → <a href="https://github.com/vllm-project/vllm/pull/53934"><span title="yes: supported"><span aria-hidden="true">✅</span> <span class="word">yes</span></span></a> since 0.32.0</td>',
            '<td class="cell status-yes"><span title="yes: supported"><span aria-hidden="true">✅</span> <span class="word">yes</span></span></td>',
            '<td class="lifecycle"></td>',
            '</tr>',
        ]),
    }),
    ('0.33.0', 'support', 'enable_sp: removed for every runner, since and removal', {
        'markdown': ('| sequence parallelism (', [
            '| sequence parallelism (compilation\\_config.pass\\_config.enable\\_sp) | `compilation_config.pass_config.enable_sp` | ⛔ removed since 0.32.0 | ⛔ removed since 0.32.0 | since 0.32.0; removed in 0.32.0 without a deprecation period |',
        ]),
        'rst': ('   * - sequence parallelism (', [
            '   * - sequence parallelism (compilation\\_config.pass\\_config.enable\\_sp)',
            '     - ``compilation_config.pass_config.enable_sp``',
            '     - ⛔ removed since 0.32.0',
            '     - ⛔ removed since 0.32.0',
            '     - since 0.32.0; removed in 0.32.0 without a deprecation period',
        ]),
        'html': ('<th scope="row" id="feature-enable_sp_removed">', [
            '<th scope="row" id="feature-enable_sp_removed">sequence parallelism (compilation_config.pass_config.enable_sp)</th>',
            '<td><code>compilation_config.pass_config.enable_sp</code></td>',
            '<td class="cell status-removed"><span title="removed: the feature no longer exists; a config that uses it is refused before any runner is chosen"><span aria-hidden="true">⛔</span> <span class="word">removed</span></span> since 0.32.0</td>',
            '<td class="cell status-removed"><span title="removed: the feature no longer exists; a config that uses it is refused before any runner is chosen"><span aria-hidden="true">⛔</span> <span class="word">removed</span></span> since 0.32.0</td>',
            '<td class="lifecycle">since 0.32.0; removed in 0.32.0 without a deprecation period</td>',
            '</tr>',
        ]),
    }),
    ('0.33.0', 'support', 'async PP: a link and a note mark on the name', {
        'markdown': ('| [pipeline parallelism with async', [
            '| [pipeline parallelism with async scheduling](<https://github.com/vllm-project/vllm/issues/45014>) [^7] | `parallel_config.pipeline_parallel_size > 1 and scheduler_config.async_scheduling` | ✅ yes | ❌ no | since 0.31.0 |',
        ]),
        'rst': ('   * - `pipeline parallelism with async', [
            '   * - `pipeline parallelism with async scheduling <https://github.com/vllm-project/vllm/issues/45014>`__ [7]_',
            '     - ``parallel_config.pipeline_parallel_size > 1 and scheduler_config.async_scheduling``',
            '     - ✅ yes',
            '     - ❌ no',
            '     - since 0.31.0',
        ]),
        'html': ('<th scope="row" id="feature-pp_async_scheduling">', [
            '<th scope="row" id="feature-pp_async_scheduling"><a href="https://github.com/vllm-project/vllm/issues/45014">pipeline parallelism with async scheduling</a> <sup><a href="#note-7">7</a></sup></th>',
            '<td><code>parallel_config.pipeline_parallel_size &gt; 1 and scheduler_config.async_scheduling</code></td>',
            '<td class="cell status-yes"><span title="yes: supported"><span aria-hidden="true">✅</span> <span class="word">yes</span></span></td>',
            '<td class="cell status-no"><span title="no: not supported"><span aria-hidden="true">❌</span> <span class="word">no</span></span></td>',
            '<td class="lifecycle">since 0.31.0</td>',
            '</tr>',
        ]),
    }),
    ('0.33.0', 'support', 'DBO: applies in automatic choice only', {
        'markdown': ('| dual batch overlap [', [
            '| dual batch overlap [^4] | `parallel_config.use_ubatching` | ❌ no | ✅ yes | in automatic choice only |',
        ]),
        'rst': ('   * - dual batch overlap [', [
            '   * - dual batch overlap [4]_',
            '     - ``parallel_config.use_ubatching``',
            '     - ❌ no',
            '     - ✅ yes',
            '     - in automatic choice only',
        ]),
        'html': ('<th scope="row" id="feature-dbo">', [
            '<th scope="row" id="feature-dbo">dual batch overlap <sup><a href="#note-4">4</a></sup></th>',
            '<td><code>parallel_config.use_ubatching</code></td>',
            '<td class="cell status-no"><span title="no: not supported"><span aria-hidden="true">❌</span> <span class="word">no</span></span></td>',
            '<td class="cell status-yes"><span title="yes: supported"><span aria-hidden="true">✅</span> <span class="word">yes</span></span></td>',
            '<td class="lifecycle">in automatic choice only</td>',
            '</tr>',
        ]),
    }),
    ('0.33.0', 'support', "mamba 'all': deprecated then removed", {
        'markdown': ('| [mamba cache', [
            "| [mamba cache mode 'all'](<https://github.com/vllm-project/vllm/pull/55041>) | `cache_config.mamba_cache_mode == 'all'` | ⛔ removed since 0.32.0 | ⛔ removed since 0.32.0 | deprecated in 0.30.0 · removed in 0.32.0 · use cache\\_config.mamba\\_cache\\_mode = 'align' |",
        ]),
        'rst': ('   * - `mamba cache', [
            "   * - `mamba cache mode 'all' <https://github.com/vllm-project/vllm/pull/55041>`__",
            "     - ``cache_config.mamba_cache_mode == 'all'``",
            '     - ⛔ removed since 0.32.0',
            '     - ⛔ removed since 0.32.0',
            "     - deprecated in 0.30.0 · removed in 0.32.0 · use cache\\_config.mamba\\_cache\\_mode = 'align'",
        ]),
        'html': ('<th scope="row" id="feature-mamba_cache_all">', [
            '<th scope="row" id="feature-mamba_cache_all"><a href="https://github.com/vllm-project/vllm/pull/55041">mamba cache mode &#x27;all&#x27;</a></th>',
            '<td><code>cache_config.mamba_cache_mode == &#x27;all&#x27;</code></td>',
            '<td class="cell status-removed"><span title="removed: the feature no longer exists; a config that uses it is refused before any runner is chosen"><span aria-hidden="true">⛔</span> <span class="word">removed</span></span> since 0.32.0</td>',
            '<td class="cell status-removed"><span title="removed: the feature no longer exists; a config that uses it is refused before any runner is chosen"><span aria-hidden="true">⛔</span> <span class="word">removed</span></span> since 0.32.0</td>',
            '<td class="lifecycle">deprecated in 0.30.0 · removed in 0.32.0 · use cache_config.mamba_cache_mode = &#x27;align&#x27;</td>',
            '</tr>',
        ]),
    }),
    ('0.33.0', 'support', 'HiSparse: forces a runner', {
        'markdown': ('| HiSparse |', [
            '| HiSparse | `attention_config.hisparse_config is not None` | ✅ yes | ❌ no | forces Model Runner V2: a request for another runner is an error |',
        ]),
        'rst': ('   * - HiSparse', [
            '   * - HiSparse',
            '     - ``attention_config.hisparse_config is not None``',
            '     - ✅ yes',
            '     - ❌ no',
            '     - forces Model Runner V2\\: a request for another runner is an error',
        ]),
        'html': ('<th scope="row" id="feature-hisparse">', [
            '<th scope="row" id="feature-hisparse">HiSparse</th>',
            '<td><code>attention_config.hisparse_config is not None</code></td>',
            '<td class="cell status-yes"><span title="yes: supported"><span aria-hidden="true">✅</span> <span class="word">yes</span></span></td>',
            '<td class="cell status-no"><span title="no: not supported"><span aria-hidden="true">❌</span> <span class="word">no</span></span></td>',
            '<td class="lifecycle">forces Model Runner V2: a request for another runner is an error</td>',
            '</tr>',
        ]),
    }),
    ('0.33.0', 'support', 'a group heading', {
        'markdown': ('| **Parallelism**', [
            '| **Parallelism** | | | | |',
        ]),
        'rst': ('   * - **Parallelism**', [
            '   * - **Parallelism**',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
        ]),
        'html': ('<tr class="group"><th scope="rowgroup" colspan="5">Parallelism<', [
            '<tr class="group"><th scope="rowgroup" colspan="5">Parallelism</th></tr>',
        ]),
    }),
    ('0.33.0', 'support', 'a numbered note', {
        'markdown': ('[^1]:', [
            '[^1]: V2 lacks the torchrun pipeline-parallel output broadcast',
        ]),
        'rst': ('.. [1]', [
            '.. [1] V2 lacks the torchrun pipeline-parallel output broadcast',
        ]),
        'html': ('<li id="note-1">', [
            '<li id="note-1">V2 lacks the torchrun pipeline-parallel output broadcast</li>',
        ]),
    }),
    ('0.33.0', 'support', 'the support legend', {
        'markdown': ('Legend: ✅ yes', [
            'Legend: ✅ yes: supported · ❌ no: not supported · ⛔ removed: the feature no longer exists; a config that uses it is refused before any runner is chosen',
        ]),
        'rst': ('Legend: ✅ yes', [
            'Legend: ✅ yes: supported · ❌ no: not supported · ⛔ removed: the feature no longer exists; a config that uses it is refused before any runner is chosen',
        ]),
        'html': ('<p>Legend: ', [
            '<p>Legend: <span class="status status-yes">✅ yes</span>: supported · <span class="status status-no">❌ no</span>: not supported · <span class="status status-removed">⛔ removed</span>: the feature no longer exists; a config that uses it is refused before any runner is chosen</p>',
        ]),
    }),
    ('0.33.0', 'pairs', "pairs: a row, a refusal's mark", {
        'markdown': ('| 4. prefill', [
            '| 4. prefill context parallel | v2 | ❌ none [^refusal-v1_only_with_v2_only] | v2 |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |  |',
        ]),
        'rst': ('   * - \\4. prefill', [
            '   * - \\4. prefill context parallel',
            '     - v2',
            '     - ❌ none [#refusal-v1_only_with_v2_only]_',
            '     - v2',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
            '     -  ',
        ]),
        'html': ('<tr><th scope="row" id="pair-prefill_context_parallel">', [
            '<tr><th scope="row" id="pair-prefill_context_parallel">4. prefill context parallel</th>',
            '<td class="status-partial" title="prefill context parallel with stock torch.compile: served by Model Runner V2">v2</td>',
            '<td class="status-no" title="prefill context parallel with pipeline parallelism with external_launcher: no runner serves a config that uses both">❌ none <sup><a href="#refusal-v1_only_with_v2_only">why</a></sup></td>',
            '<td class="status-partial" title="prefill context parallel with elastic expert parallelism: served by Model Runner V2">v2</td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '<td></td>',
            '</tr>',
        ]),
    }),
    ('0.33.0', 'pairs', 'the pairs legend', {
        'markdown': ('Legend: ✅ all', [
            'Legend: ✅ all: every runner serves some config that uses both · runner ids: only the runners named serve a config that uses both · ❌ none: no runner serves a config that uses both · ➖ never: no config uses both',
        ]),
        'rst': ('Legend: \\✅ all', [
            'Legend: \\✅ all: every runner serves some config that uses both · runner ids: only the runners named serve a config that uses both · \\❌ none: no runner serves a config that uses both · \\➖ never: no config uses both',
        ]),
        'html': ('<p>Legend: ', [
            '<p>Legend: <span class="status-yes">✅ all</span>: every runner serves some config that uses both · <span class="status-partial">runner ids</span>: only the runners named serve a config that uses both · <span class="status-no">❌ none</span>: no runner serves a config that uses both · <span class="pair-never">➖ never</span>: no config uses both</p>',
        ]),
    }),
    ('0.33.0', 'pairs', 'a named note: the refusal a pair links to', {
        'markdown': ('[^refusal-', [
            '[^refusal-v1_only_with_v2_only]: Refused on purpose (`v1_only_with_v2_only`): a feature only Model Runner V1 serves cannot be combined with one only Model Runner V2 serves: vLLM raises the V1 error',
        ]),
        'rst': ('.. [#refusal-', [
            '.. [#refusal-v1_only_with_v2_only] Refused on purpose (``v1_only_with_v2_only``): a feature only Model Runner V1 serves cannot be combined with one only Model Runner V2 serves\\: vLLM raises the V1 error',
        ]),
        'html': ('<li id="refusal-v1_only_with_v2_only">', [
            '<li id="refusal-v1_only_with_v2_only">Refused on purpose (<code>v1_only_with_v2_only</code>): a feature only Model Runner V1 serves cannot be combined with one only Model Runner V2 serves: vLLM raises the V1 error</li>',
        ]),
    }),
    ('0.33.0', 'config', 'config: a choice until a release', {
        'markdown': ('| `cache_config.mamba_cache_mode`', [
            "| `cache_config.mamba_cache_mode` | str | 'none', 'align', 'all' (until 0.32.0) | `'none'` | How the Mamba state cache is kept |",
        ]),
        'rst': ('   * - ``cache_config.mamba_cache_mode``', [
            '   * - ``cache_config.mamba_cache_mode``',
            '     - str',
            "     - \\'none', 'align', 'all' (until 0.32.0)",
            "     - ``'none'``",
            '     - How the Mamba state cache is kept',
        ]),
        'html': ('<tr><th scope="row"><code>cache_config.mamba_cache_mode</code></th>', [
            '<tr><th scope="row"><code>cache_config.mamba_cache_mode</code></th><td>str</td><td>&#x27;none&#x27;, &#x27;align&#x27;, &#x27;all&#x27; (until 0.32.0)</td><td><code>&#x27;none&#x27;</code></td><td>How the Mamba state cache is kept</td></tr>',
        ]),
    }),
    ('0.33.0', 'config', 'config: a field until a release', {
        'markdown': ('| `compilation_config.pass_config.enable_sp`', [
            '| `compilation_config.pass_config.enable_sp` | bool; until 0.32.0 |  | `False` | Sequence parallelism compile pass |',
        ]),
        'rst': ('   * - ``compilation_config.pass_config.enable_sp``', [
            '   * - ``compilation_config.pass_config.enable_sp``',
            '     - bool; until 0.32.0',
            '     -  ',
            '     - ``False``',
            '     - Sequence parallelism compile pass',
        ]),
        'html': ('<tr><th scope="row"><code>compilation_config.pass_config.enable_sp</code></th>', [
            '<tr><th scope="row"><code>compilation_config.pass_config.enable_sp</code></th><td>bool; until 0.32.0</td><td></td><td><code>False</code></td><td>Sequence parallelism compile pass</td></tr>',
        ]),
    }),
    ('0.33.0', 'config', 'config: nullable, from a release', {
        'markdown': ('| `speculative_config.draft_lm_head_quantization`', [
            "| `speculative_config.draft_lm_head_quantization` | str, or None; from 0.33.0 | 'fp8', 'nvfp4' | `None` |  |",
        ]),
        'rst': ('   * - ``speculative_config.draft_lm_head_quantization``', [
            '   * - ``speculative_config.draft_lm_head_quantization``',
            '     - str, or None; from 0.33.0',
            "     - \\'fp8', 'nvfp4'",
            '     - ``None``',
            '     -  ',
        ]),
        'html': ('<tr><th scope="row"><code>speculative_config.draft_lm_head_quantization</code></th>', [
            '<tr><th scope="row"><code>speculative_config.draft_lm_head_quantization</code></th><td>str, or None; from 0.33.0</td><td>&#x27;fp8&#x27;, &#x27;nvfp4&#x27;</td><td><code>None</code></td><td></td></tr>',
        ]),
    }),
    ('0.33.0', 'config', 'config: classes, nullable list', {
        'markdown': ('| `model_config.logits_processors`', [
            '| `model_config.logits_processors` | list\\[str\\], or None; a class reads as its qualified name |  | `None` | Qualified class names, or the classes themselves; None for none |',
        ]),
        'rst': ('   * - ``model_config.logits_processors``', [
            '   * - ``model_config.logits_processors``',
            '     - list\\[str\\], or None; a class reads as its qualified name',
            '     -  ',
            '     - ``None``',
            '     - Qualified class names, or the classes themselves; None for none',
        ]),
        'html': ('<tr><th scope="row"><code>model_config.logits_processors</code></th>', [
            '<tr><th scope="row"><code>model_config.logits_processors</code></th><td>list[str], or None; a class reads as its qualified name</td><td></td><td><code>None</code></td><td>Qualified class names, or the classes themselves; None for none</td></tr>',
        ]),
    }),
    ('0.33.0', 'config', 'config: a fact', {
        'markdown': ('| `speculative_config.draft_model_config.mixed_sliding_attention`', [
            '| `speculative_config.draft_model_config.mixed_sliding_attention` | bool; a fact the host computes |  | `False` | Derived by the host: some but not all draft layers use sliding attention |',
        ]),
        'rst': ('   * - ``speculative_config.draft_model_config.mixed_sliding_attention``', [
            '   * - ``speculative_config.draft_model_config.mixed_sliding_attention``',
            '     - bool; a fact the host computes',
            '     -  ',
            '     - ``False``',
            '     - Derived by the host\\: some but not all draft layers use sliding attention',
        ]),
        'html': ('<tr><th scope="row"><code>speculative_config.draft_model_config.mixed_sliding_attention</code></th>', [
            '<tr><th scope="row"><code>speculative_config.draft_model_config.mixed_sliding_attention</code></th><td>bool; a fact the host computes</td><td></td><td><code>False</code></td><td>Derived by the host: some but not all draft layers use sliding attention</td></tr>',
        ]),
    }),
    ('0.33.0', 'config', 'config: required', {
        'markdown': ('| `speculative_config.method`', [
            "| `speculative_config.method` | str | 'ngram', 'ngram\\_gpu', 'draft\\_model', 'suffix', 'medusa' (until 0.33.0), 'mlp\\_speculator' (until 0.33.0), 'custom\\_class', 'eagle', 'eagle3', 'extract\\_hidden\\_states', 'mtp', 'dflash', 'dspark' | required |  |",
        ]),
        'rst': ('   * - ``speculative_config.method``', [
            '   * - ``speculative_config.method``',
            '     - str',
            "     - \\'ngram', 'ngram\\_gpu', 'draft\\_model', 'suffix', 'medusa' (until 0.33.0), 'mlp\\_speculator' (until 0.33.0), 'custom\\_class', 'eagle', 'eagle3', 'extract\\_hidden\\_states', 'mtp', 'dflash', 'dspark'",
            '     - required',
            '     -  ',
        ]),
        'html': ('<tr><th scope="row"><code>speculative_config.method</code></th>', [
            '<tr><th scope="row"><code>speculative_config.method</code></th><td>str</td><td>&#x27;ngram&#x27;, &#x27;ngram_gpu&#x27;, &#x27;draft_model&#x27;, &#x27;suffix&#x27;, &#x27;medusa&#x27; (until 0.33.0), &#x27;mlp_speculator&#x27; (until 0.33.0), &#x27;custom_class&#x27;, &#x27;eagle&#x27;, &#x27;eagle3&#x27;, &#x27;extract_hidden_states&#x27;, &#x27;mtp&#x27;, &#x27;dflash&#x27;, &#x27;dspark&#x27;</td><td>required</td><td></td></tr>',
        ]),
    }),
    ('0.33.0', 'deprecations', 'deprecations: removed without a period', {
        'markdown': ('| sequence parallelism (compilation\\_config.pass\\_config.enable\\_sp) | no', [
            '| sequence parallelism (compilation\\_config.pass\\_config.enable\\_sp) | no deprecation period | 0.32.0 | removed without a deprecation period |  | vLLM deleted the sequence-parallelism compile pass and PassConfig.enable\\_sp |',
        ]),
        'rst': ('   * - sequence parallelism (compilation\\_config.pass\\_config.enable\\_sp)', [
            '   * - sequence parallelism (compilation\\_config.pass\\_config.enable\\_sp)',
            '     - no deprecation period',
            '     - 0.32.0',
            '     - removed without a deprecation period',
            '     -  ',
            '     - vLLM deleted the sequence-parallelism compile pass and PassConfig.enable\\_sp',
        ]),
        'html': ('<tr><th scope="row">sequence parallelism (', [
            '<tr><th scope="row">sequence parallelism (compilation_config.pass_config.enable_sp)</th><td>no deprecation period</td><td>0.32.0</td><td>removed without a deprecation period</td><td></td><td>vLLM deleted the sequence-parallelism compile pass and PassConfig.enable_sp</td></tr>',
        ]),
    }),
    ('0.31.0', 'support', 'at 0.31.0: the history to 0.31.0, its link', {
        'markdown': ('| custom logits processors |', [
            '| custom logits processors | `model_config.logits_processors or model_config is not None and platform.logits_processor_plugins` | ❌ no → [✅ yes](<https://github.com/vllm-project/vllm/pull/56497>) since 0.31.0 | ✅ yes |  |',
        ]),
        'rst': ('   * - custom logits processors', [
            '   * - custom logits processors',
            '     - ``model_config.logits_processors or model_config is not None and platform.logits_processor_plugins``',
            '     - ❌ no → `✅ yes <https://github.com/vllm-project/vllm/pull/56497>`__ since 0.31.0',
            '     - ✅ yes',
            '     -  ',
        ]),
        'html': ('<th scope="row" id="feature-custom_logits_processors">', [
            '<th scope="row" id="feature-custom_logits_processors">custom logits processors</th>',
            '<td><code>model_config.logits_processors or model_config is not None and platform.logits_processor_plugins</code></td>',
            '<td class="cell status-yes"><span title="no: not supported"><span aria-hidden="true">❌</span> <span class="word">no</span></span> → <a href="https://github.com/vllm-project/vllm/pull/56497"><span title="yes: supported"><span aria-hidden="true">✅</span> <span class="word">yes</span></span></a> since 0.31.0</td>',
            '<td class="cell status-yes"><span title="yes: supported"><span aria-hidden="true">✅</span> <span class="word">yes</span></span></td>',
            '<td class="lifecycle"></td>',
            '</tr>',
        ]),
    }),
    ('0.31.0', 'support', 'at 0.31.0: a statement of a later release is not shown', {
        'markdown': ('| stock torch.compile |', [
            "| stock torch.compile | `compilation_config.mode == 'STOCK_TORCH_COMPILE'` | ❌ no | ✅ yes |  |",
        ]),
        'rst': ('   * - stock torch.compile', [
            '   * - stock torch.compile',
            "     - ``compilation_config.mode == 'STOCK_TORCH_COMPILE'``",
            '     - ❌ no',
            '     - ✅ yes',
            '     -  ',
        ]),
        'html': ('<th scope="row" id="feature-stock_torch_compile">', [
            '<th scope="row" id="feature-stock_torch_compile">stock torch.compile</th>',
            '<td><code>compilation_config.mode == &#x27;STOCK_TORCH_COMPILE&#x27;</code></td>',
            '<td class="cell status-no"><span title="no: not supported"><span aria-hidden="true">❌</span> <span class="word">no</span></span></td>',
            '<td class="cell status-yes"><span title="yes: supported"><span aria-hidden="true">✅</span> <span class="word">yes</span></span></td>',
            '<td class="lifecycle"></td>',
            '</tr>',
        ]),
    }),
    ('0.31.0', 'deprecations', 'at 0.31.0: deprecated, not yet removed', {
        'markdown': ("| mamba cache mode 'all' |", [
            "| mamba cache mode 'all' | 0.30.0 | 0.32.0 | deprecated | cache\\_config.mamba\\_cache\\_mode = 'align' | Open an issue if that is a problem |",
        ]),
        'rst': ("   * - mamba cache mode 'all'", [
            "   * - mamba cache mode 'all'",
            '     - 0.30.0',
            '     - 0.32.0',
            '     - deprecated',
            "     - cache\\_config.mamba\\_cache\\_mode = 'align'",
            '     - Open an issue if that is a problem',
        ]),
        'html': ('<tr><th scope="row">mamba cache mode', [
            '<tr><th scope="row">mamba cache mode &#x27;all&#x27;</th><td>0.30.0</td><td>0.32.0</td><td>deprecated</td><td>cache_config.mamba_cache_mode = &#x27;align&#x27;</td><td>Open an issue if that is a problem</td></tr>',
        ]),
    }),
    # The adjustments table (issue 27, item 7): what vLLM changes in a config, who, when, since when.
    ('0.33.0', 'adjustments', "stock compile: a runner's adjustment, a constant, vLLM's message template", {
        'markdown': ('| `stock_compile_cudagraphs` |', [
            "| `stock_compile_cudagraphs` | CUDA graphs off under stock torch.compile | Model Runner V2 | `compilation_config.mode == 'STOCK_TORCH_COMPILE' and compilation_config.cudagraph_mode != 'NONE'` | `compilation_config.cudagraph_mode = 'NONE'` | yes | info | CUDA graphs are not supported with stock torch.compile in Model Runner V2. Overriding cudagraph\\_mode {compilation\\_config.cudagraph\\_mode} to NONE. | since 0.32.0 |",
        ]),
        'rst': ('   * - ``stock_compile_cudagraphs``', [
            '   * - ``stock_compile_cudagraphs``',
            '     - CUDA graphs off under stock torch.compile',
            '     - Model Runner V2',
            "     - ``compilation_config.mode == 'STOCK_TORCH_COMPILE' and compilation_config.cudagraph_mode != 'NONE'``",
            "     - ``compilation_config.cudagraph_mode = 'NONE'``",
            '     - yes',
            '     - info',
            '     - CUDA graphs are not supported with stock torch.compile in Model Runner V2. Overriding cudagraph\\_mode {compilation\\_config.cudagraph\\_mode} to NONE.',
            '     - since 0.32.0',
        ]),
        'html': ('<th scope="row" id="adjustment-stock_compile_cudagraphs">', [
            '<th scope="row" id="adjustment-stock_compile_cudagraphs"><code>stock_compile_cudagraphs</code></th>',
            '<td>CUDA graphs off under stock torch.compile</td>',
            '<td>Model Runner V2</td>',
            '<td><code>compilation_config.mode == &#x27;STOCK_TORCH_COMPILE&#x27; and compilation_config.cudagraph_mode != &#x27;NONE&#x27;</code></td>',
            '<td><code>compilation_config.cudagraph_mode = &#x27;NONE&#x27;</code></td>',
            '<td>yes</td>',
            '<td>info</td>',
            '<td>CUDA graphs are not supported with stock torch.compile in Model Runner V2. Overriding cudagraph_mode {compilation_config.cudagraph_mode} to NONE.</td>',
            '<td class="lifecycle">since 0.32.0</td>',
            '</tr>',
        ]),
    }),
    ('0.33.0', 'adjustments', 'max_model_len: a value copied from another path (from), warning level', {
        'markdown': ('| `draft_max_model_len` |', [
            "| `draft_max_model_len` | max\\_model\\_len lowered to the draft model's | Model Runner V2 | `model_config.max_model_len is not None and speculative_config.draft_model_config.max_model_len is not None and speculative_config.draft_model_config.max_model_len < model_config.max_model_len` | `model_config.max_model_len` from `speculative_config.draft_model_config.max_model_len` | yes | warning | The draft model's max\\_model\\_len ({speculative\\_config.draft\\_model\\_config.max\\_model\\_len}) is smaller than the target model's ({model\\_config.max\\_model\\_len}): Model Runner V2 lowers max\\_model\\_len to {speculative\\_config.draft\\_model\\_config.max\\_model\\_len} | since 0.33.0 |",
        ]),
        'rst': ('   * - ``draft_max_model_len``', [
            '   * - ``draft_max_model_len``',
            "     - max\\_model\\_len lowered to the draft model's",
            '     - Model Runner V2',
            '     - ``model_config.max_model_len is not None and speculative_config.draft_model_config.max_model_len is not None and speculative_config.draft_model_config.max_model_len < model_config.max_model_len``',
            '     - ``model_config.max_model_len`` from ``speculative_config.draft_model_config.max_model_len``',
            '     - yes',
            '     - warning',
            "     - The draft model's max\\_model\\_len ({speculative\\_config.draft\\_model\\_config.max\\_model\\_len}) is smaller than the target model's ({model\\_config.max\\_model\\_len})\\: Model Runner V2 lowers max\\_model\\_len to {speculative\\_config.draft\\_model\\_config.max\\_model\\_len}",
            '     - since 0.33.0',
        ]),
        'html': ('<th scope="row" id="adjustment-draft_max_model_len">', [
            '<th scope="row" id="adjustment-draft_max_model_len"><code>draft_max_model_len</code></th>',
            '<td>max_model_len lowered to the draft model&#x27;s</td>',
            '<td>Model Runner V2</td>',
            '<td><code>model_config.max_model_len is not None and speculative_config.draft_model_config.max_model_len is not None and speculative_config.draft_model_config.max_model_len &lt; model_config.max_model_len</code></td>',
            '<td><code>model_config.max_model_len</code> from <code>speculative_config.draft_model_config.max_model_len</code></td>',
            '<td>yes</td>',
            '<td>warning</td>',
            '<td>The draft model&#x27;s max_model_len ({speculative_config.draft_model_config.max_model_len}) is smaller than the target model&#x27;s ({model_config.max_model_len}): Model Runner V2 lowers max_model_len to {speculative_config.draft_model_config.max_model_len}</td>',
            '<td class="lifecycle">since 0.33.0</td>',
            '</tr>',
        ]),
    }),
    ('0.33.0', 'adjustments', 'Mamba cache mode: before the choice, a generated message', {
        'markdown': ('| `mamba_cache_align` |', [
            "| `mamba_cache_align` | Mamba cache mode follows prefix caching (on) | every config, before the choice | `model_config.is_hybrid and cache_config.enable_prefix_caching and cache_config.mamba_cache_mode != 'all'` | `cache_config.mamba_cache_mode = 'align'` | yes | info | generated, per path: &lt;name\\>: set &lt;path\\> from &lt;before\\> to &lt;after\\> | since 0.32.0 |",
        ]),
        'rst': ('   * - ``mamba_cache_align``', [
            '   * - ``mamba_cache_align``',
            '     - Mamba cache mode follows prefix caching (on)',
            '     - every config, before the choice',
            "     - ``model_config.is_hybrid and cache_config.enable_prefix_caching and cache_config.mamba_cache_mode != 'all'``",
            "     - ``cache_config.mamba_cache_mode = 'align'``",
            '     - yes',
            '     - info',
            '     - generated, per path\\: \\<name\\>\\: set \\<path\\> from \\<before\\> to \\<after\\>',
            '     - since 0.32.0',
        ]),
        'html': ('<th scope="row" id="adjustment-mamba_cache_align">', [
            '<th scope="row" id="adjustment-mamba_cache_align"><code>mamba_cache_align</code></th>',
            '<td>Mamba cache mode follows prefix caching (on)</td>',
            '<td>every config, before the choice</td>',
            '<td><code>model_config.is_hybrid and cache_config.enable_prefix_caching and cache_config.mamba_cache_mode != &#x27;all&#x27;</code></td>',
            '<td><code>cache_config.mamba_cache_mode = &#x27;align&#x27;</code></td>',
            '<td>yes</td>',
            '<td>info</td>',
            '<td>generated, per path: &lt;name&gt;: set &lt;path&gt; from &lt;before&gt; to &lt;after&gt;</td>',
            '<td class="lifecycle">since 0.32.0</td>',
            '</tr>',
        ]),
    }),
    ('0.31.0', 'adjustments', 'at 0.31.0: the table says no adjustment is in force', {
        'markdown': ('No adjustment', [
            'No adjustment is in force at this version.',
        ]),
        'rst': ('No adjustment', [
            'No adjustment is in force at this version.',
        ]),
        'html': ('<p>No adjustment', [
            '<p>No adjustment is in force at this version.</p>',
        ]),
    }),
]


@pytest.mark.parametrize("format", ["markdown", "rst", "html"])
@pytest.mark.parametrize(("version", "table", "what", "expected"), DEFAULT_ROWS, ids=[r[2] for r in DEFAULT_ROWS])
def test_rows_of_the_default_matrix_in_every_display_format(version, table, what, expected, format):
    start, lines = expected[format]
    assert _row(render(DEFAULT, format=format, version=version, tables=[table]), format, start) == lines


def _body_rows(text, format):
    """The first line of each body row of every table of *text* (header rows left out)."""
    lines = text.splitlines()
    if format == "markdown":
        return [line for line, after in zip(lines, [*lines[1:], ""]) if line.startswith("| ") and not after.startswith("|---")]
    if format == "rst":
        return [line for line, before in zip(lines, ["", *lines]) if line.startswith("   * - ") and before != ""]
    body = "\n".join(re.findall(r"<tbody>\n(.*?)</tbody>", text, re.S))
    return [line for line in body.splitlines() if line.startswith("<tr")]


_GROUP = {"markdown": re.compile(r"^\| \*\*(.+)\*\* \|"), "rst": re.compile(r"^   \* - \*\*(.+)\*\*$"),
          "html": re.compile(r'^<tr class="group"><th scope="rowgroup" colspan="5">(.+)</th></tr>$')}


def _groups(text, format):
    """The support table's group headings in order, each with the number of its feature rows."""
    out = []
    for line in _body_rows(text, format):
        heading = _GROUP[format].match(line)
        if heading:
            out.append([heading.group(1), 0])
        else:
            out[-1][1] += 1
    return [tuple(group) for group in out]


_DEFAULT_GROUPS = {
    "0.33.0": [("Compilation and CUDA graphs", 1), ("Parallelism", 6), ("Speculative decoding", 16),
               ("Dual batch overlap", 9), ("Models and sampling", 6), ("Platform", 1)],
    "0.31.0": [("Compilation and CUDA graphs", 1), ("Parallelism", 6), ("Speculative decoding", 12),
               ("Dual batch overlap", 9), ("Models and sampling", 5), ("Platform", 2)],
}
#: version → table → its body rows: (pairs, config; deprecations with the changes by release).
_DEFAULT_COUNTS = {"0.33.0": {"runners": 2, "adjustments": 4, "pairs": 34, "config": 42, "deprecations": 4 + 26},
                   "0.31.0": {"runners": 2, "adjustments": 0, "pairs": 34, "config": 42, "deprecations": 4 + 7}}


@pytest.mark.parametrize("format", ["markdown", "rst", "html"])
@pytest.mark.parametrize("version", ["0.33.0", "0.31.0"])
def test_the_default_matrix_has_every_row_in_every_display_format(version, format):
    support = render(DEFAULT, format=format, version=version, tables=["support"])
    assert _groups(support, format) == _DEFAULT_GROUPS[version]
    assert sum(n for _, n in _DEFAULT_GROUPS[version]) == len(DEFAULT.features_at(version))
    for table, count in _DEFAULT_COUNTS[version].items():
        assert len(_body_rows(render(DEFAULT, format=format, version=version, tables=[table]), format)) == count, table
    whole = render(DEFAULT, format=format, version=version, tables=TABLES)
    assert render(DEFAULT, format=format, version=version, tables=TABLES) == whole  # deterministic
    headings = {"markdown": [line for line in whole.splitlines() if line.startswith("### ")],
                "rst": [line for line, after in zip(whole.splitlines(), whole.splitlines()[1:]) if after and set(after) == {"-"}],
                "html": re.findall(r"<h2>(.*)</h2>", whole)}[format]
    names = {"markdown": "### {}: vLLM model runners{}", "rst": "{}: vLLM model runners{}", "html": "{}"}[format]
    assert headings == [names.format(name, f" {version}" if name in ("Support matrix", "Adjustments", "Feature pairs") else "")
                        for name in ("Support matrix", "Runners", "Adjustments", "Feature pairs", "Config reference",
                                     "Deprecations", "Changes by release", "What changed for users")]
    pairs = render(DEFAULT, format=format, version=version, tables=["pairs"])
    columns = {"markdown": lambda: next(line for line in pairs.splitlines() if line.startswith("|---")).count("---"),
               "rst": lambda: len(_row(pairs, "rst", "   * - Feature")),
               "html": lambda: pairs.count('<th scope="col"')}[format]()
    assert columns == 1 + 33  # Feature, then 1 to 33: the last of the 34 features pairs with every other one


def test_the_default_matrix_as_json():
    for version in ("0.33.0", "0.31.0"):
        data = json.loads(render(DEFAULT, format="json", version=version, tables=TABLES))
        _validate_json(data)
        assert list(data) == ["format", "generated_by", "matrix", "version", "runners", "legend", "features",
                              "adjustments", "pairs", "config", "deprecations", "changes", "release_notes",
                              "release_gaps"]
        assert sorted(f["id"] for f in data["features"]) == sorted(f.id for f in DEFAULT.features_at(version))
        # In the support table's order: group by group, as the display formats show them.
        groups = [(group, len(list(rows))) for group, rows in itertools.groupby(f["group"] for f in data["features"])]
        assert groups == _DEFAULT_GROUPS[version]
        assert len(data["pairs"]) == 34 * 33 // 2 and len(data["config"]) == 42
        assert json.loads(render(DEFAULT, format="json", version=version, tables=TABLES)) == data  # deterministic
    old = json.loads(render(DEFAULT, format="json", version="0.31.0", tables=TABLES))
    new = json.loads(render(DEFAULT, format="json", tables=TABLES))
    assert [e["status"] for e in old["legend"]] == ["yes", "no"]  # only the statuses the version shows
    assert [e["status"] for e in new["legend"]] == ["yes", "no", "removed"]  # no partial since stock compile is an adjustment
    elastic = {"id": "elastic_ep", "name": "elastic expert parallelism", "group": "Parallelism",
               "condition": "parallel_config.enable_elastic_ep", "since": None, "until": None, "deprecated": None,
               "forces": None, "prefers": None, "applies": "always", "note": None,
               "links": ["https://github.com/vllm-project/vllm/issues/53933"],
               "support": {"v2": {"status": "yes", "note": None, "link": "https://github.com/vllm-project/vllm/pull/53934",
                                  "since": "0.32.0",
                                  "history": [{"status": "no", "since": None, "note": None, "link": None},
                                              {"status": "yes", "since": "0.32.0", "note": None,
                                               "link": "https://github.com/vllm-project/vllm/pull/53934"}]},
                           "v1": {"status": "yes", "note": None, "link": None, "since": None,
                                  "history": [{"status": "yes", "since": None, "note": None, "link": None}]}}}
    assert next(f for f in new["features"] if f["id"] == "elastic_ep") == elastic
    # At 0.31.0 the history stops at the version: the statement of 0.32.0 is not in it.
    assert next(f for f in old["features"] if f["id"] == "elastic_ep")["support"]["v2"] == {
        "status": "no", "note": None, "link": None, "since": None,
        "history": [{"status": "no", "since": None, "note": None, "link": None}]}
    removed = next(f for f in new["features"] if f["id"] == "enable_sp_removed")["support"]
    assert removed["v1"] == removed["v2"] == {"status": "removed", "note": None, "link": None, "since": "0.32.0",
                                              "history": [{"status": "removed", "since": "0.32.0", "note": None, "link": None}]}
    assert next(f for f in new["features"] if f["id"] == "dbo")["applies"] == "automatic"
    refusal = {"id": "v1_only_with_v2_only", "links": [],
               "reason": "a feature only Model Runner V1 serves cannot be combined with one only Model Runner V2 serves: vLLM raises the V1 error"}
    pairs = {tuple(p["features"]): p for p in new["pairs"]}
    assert pairs[("pp_external_launcher", "prefill_context_parallel")] == {
        "features": ["pp_external_launcher", "prefill_context_parallel"], "served": "none", "runners": [], "refusal": refusal}
    assert pairs[("stock_torch_compile", "pp_external_launcher")] == {
        "features": ["stock_torch_compile", "pp_external_launcher"], "served": "some", "runners": ["v1"], "refusal": None}
    assert collections.Counter(p["served"] for p in new["pairs"]) == {"some": 327, "none": 184, "never": 38, "all": 12}
    assert [(d["feature"], d["state"]) for d in old["deprecations"]] == [
        ("mamba_cache_all", "deprecated"), ("enable_sp_removed", "not yet deprecated"), ("spec_medusa", "not yet deprecated"),
        ("spec_mlp_speculator", "not yet deprecated")]
    assert [(d["feature"], d["state"], d["without_period"]) for d in new["deprecations"]] == [
        ("mamba_cache_all", "removed", False), ("enable_sp_removed", "removed", True), ("spec_medusa", "removed", True),
        ("spec_mlp_speculator", "removed", True)]
    assert new["changes"][:len(old["changes"])] == old["changes"]  # the changes up to the version
    # The adjustments in force, those before the choice first: none at 0.31.0.
    assert old["adjustments"] == []
    assert [(a["id"], a["runners"]) for a in new["adjustments"]] == [
        ("mamba_cache_align", []), ("mamba_cache_none", []), ("stock_compile_cudagraphs", ["v2"]),
        ("draft_max_model_len", ["v2"])]
    assert new["adjustments"][2] == {
        "id": "stock_compile_cudagraphs", "name": "CUDA graphs off under stock torch.compile", "runners": ["v2"],
        "when": "compilation_config.mode == 'STOCK_TORCH_COMPILE' and compilation_config.cudagraph_mode != 'NONE'",
        "set": [{"path": "compilation_config.cudagraph_mode", "value": "NONE", "from": None}],
        "override": True, "level": "info",
        "message": "CUDA graphs are not supported with stock torch.compile in Model Runner V2. Overriding cudagraph_mode "
                   "{compilation_config.cudagraph_mode} to NONE.", "says": "changes",
        "since": "0.32.0", "until": None, "links": []}
    assert new["adjustments"][3]["set"] == [{"path": "model_config.max_model_len", "value": None,
                                             "from": "speculative_config.draft_model_config.max_model_len"}]
    assert (new["adjustments"][0]["message"], new["adjustments"][3]["level"]) == (None, "warning")
    # One change of each kind, as the changes table writes it.
    assert {c["kind"]: (c["version"], c["feature"], c["text"]) for c in reversed(new["changes"])} == {
        "deprecated": ("0.30.0", "mamba_cache_all", "deprecated"),
        "support": ("0.31.0", "spec_draft_model", "Model Runner V2: no → yes"),
        "added": ("0.31.0", "pp_async_scheduling", "gate added"),
        "ended": ("0.31.0", "dflash2", "gate ended"),
        "changed": ("0.31.0", "rocm_v1_default_when_free",
                    "rule changed: now prefers Model Runner V1 in automatic choice, when nothing blocks it"),
        "removed": ("0.32.0", "enable_sp_removed", "removed without a deprecation period")}


def _markdown_table(text, heading):
    """Rows of the Markdown table under *heading*, as lists of unescaped cell texts."""
    lines = text.split(heading, 1)[1].split("\n", 1)[1].strip().splitlines()
    lines = lines[next(i for i, line in enumerate(lines) if line.startswith("|")):]  # after the legend
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        rows.append(cells)
    return rows[0], rows[2:]


def test_the_default_markdown_table():
    text = render(DEFAULT, format="markdown", version="0.30.0")
    header, rows = _markdown_table(text, "### Support matrix: vLLM model runners 0.30.0")
    assert header == ["Feature", "Condition", "Model Runner V2", "Model Runner V1", "Lifecycle"]
    names = [_plain_name(r[0]) for r in rows if not r[0].startswith("**")]
    assert sorted(names) == sorted(f.name for f in DEFAULT.features_at("0.30.0"))
    mamba = next(r for r in rows if _plain_name(r[0]) == "mamba cache mode 'all'")
    assert mamba[0] == "[mamba cache mode 'all'](<https://github.com/vllm-project/vllm/pull/55041>)"  # the feature's link
    assert mamba[2] == "❌ no"  # not repeated on the status
    assert mamba[4] == "deprecated in 0.30.0 · to be removed in 0.32.0 · use cache\\_config.mamba\\_cache\\_mode = 'align'"
    assert "Legend: ✅ yes: supported · ❌ no: not supported\n" in text  # no opt-in left: DBO says when it applies
    dbo = next(r for r in rows if _plain_name(r[0]) == "dual batch overlap")
    assert (dbo[2], dbo[3], dbo[4]) == ("❌ no", "✅ yes", "in automatic choice only")
    lora = next(r for r in rows if _plain_name(r[0]) == "dual batch overlap with LoRA")
    assert (lora[2], lora[4]) == ("❌ no", "only when a runner is asked for")


def test_the_0_31_0_table_shows_v2_supporting_custom_logits_processors():
    _, rows = _markdown_table(render(DEFAULT, format="markdown", version="0.31.0"),
                              "### Support matrix: vLLM model runners 0.31.0")
    row = next(r for r in rows if r[0] == "custom logits processors")
    # The whole history, every status in words, the statement's own link on it.
    assert row[2:4] == ["❌ no → [✅ yes](<https://github.com/vllm-project/vllm/pull/56497>) since 0.31.0", "✅ yes"]
    names = [r[0] for r in rows]
    assert "DFlash candidate-head drafts" in names and "dflash2 drafts [6]" not in names


def _plain_name(cell):
    """A feature's name as its Markdown cell shows it, without its links and note mark."""
    cell = re.sub(r" \[\^\d+\]$", "", cell)
    cell = re.sub(r" \(\[\d+\]\(<[^>]*>\)\)", "", cell)
    cell = re.sub(r"^\[(.*)\]\(<[^>]*>\)$", r"\1", cell)
    return cell.replace("\\", "")


def _symbol(cell):
    """The symbol of the statement in force: the last of the cell's history."""
    last = cell.split(" → ")[-1]
    match = re.match(r"^\[?(✅|❌|🟠|🧪|⛔) (yes|no|partial|opt-in|removed)\b", last)
    assert match, cell
    return match.group(1)


@given(st.data())
def test_docs_and_resolver_never_disagree(data):
    m = data.draw(st.sampled_from([DEFAULT, KITCHEN]))
    # A version past the newest release the file knows of is a UsageError (test_lifecycle).
    version = data.draw(st.sampled_from([v for v in [None, "0.30.0", "0.31.0", "1.0", "1.1"]
                                         if v is None or matrix.resolver.as_version(v) <= m.newest_release]))
    v = m.version if version is None else matrix.resolver.as_version(version)
    config = data.draw(configs(m))
    try:
        resolution = m.resolve(config, version=version)
    except (NoRunnerError, RemovedFeatureError) as error:
        resolution = error.resolution
    header, rows = _markdown_table(render(m, format="markdown", version=version, tables=["support"]), f"### Support matrix: {m.name} {v}")
    by_name = {_plain_name(r[0]): r for r in rows if not r[0].startswith("**")}
    for column, runner in enumerate(m.runners, start=2):
        blocked = {f.name for f in resolution.unsupported[runner.id]}
        for feature in resolution.active:
            if feature.removed_at(v):  # refused before any runner is chosen, whatever runner is asked
                assert _symbol(by_name[feature.name][column]) == "⛔"
                with pytest.raises(RemovedFeatureError):
                    m.resolve(config, version=version, runner=runner.id)
            else:
                assert (_symbol(by_name[feature.name][column]) in ("❌", "🧪")) == (feature.name in blocked)


def _docutils_warnings(text):
    from docutils.core import publish_doctree

    stream = io.StringIO()
    publish_doctree(text, settings_overrides={"warning_stream": stream, "report_level": 1, "halt_level": 5})
    return stream.getvalue()


@pytest.mark.parametrize(("name", "m", "version"), CASES, ids=[c[0] for c in CASES])
def test_restructuredtext_passes_docutils_without_warnings(name, m, version):
    assert _docutils_warnings(render(m, format="rst", version=version)) == ""


class _Strict(HTMLParser):
    VOID = {"meta", "br", "img", "hr", "link", "input"}

    def __init__(self):
        super().__init__()
        self.stack = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (tag, self.stack)
        self.stack.pop()


def _check_html(text):
    ET.fromstring(text.split("\n", 1)[1])  # well-formed as XML, after the doctype line
    parser = _Strict()
    parser.feed(text)
    parser.close()
    assert parser.stack == []


@pytest.mark.parametrize(("name", "m", "version"), CASES, ids=[c[0] for c in CASES])
def test_html_is_well_formed_and_standalone(name, m, version):
    text = render(m, format="html", version=version)
    _check_html(text)
    assert "<style>" in text and "position: sticky" in text
    assert not re.search(r"""(src|href)=["'](?!https?://|#)""", text)  # no external assets
    assert '<th scope="col">Model Runner V2</th>' in text or m is KITCHEN


def test_json_output_is_typed_data_that_its_schema_accepts():
    data = json.loads(render(KITCHEN, format="json", version="1.1"))
    _validate_json(data)
    assert data["format"] == 1
    assert data["generated_by"] == "Generated by `matrix docs` from kitchen_sink.toml: do not edit by hand."
    assert [r["id"] for r in data["runners"]] == ["v2", "v1"]
    ngram = next(f for f in data["features"] if f["id"] == "ngram")
    assert ngram["support"]["v2"] == {
        "status": "yes", "note": None, "link": None, "since": "1.1",
        "history": [{"status": "no", "since": None, "note": None, "link": "https://example.org/ngram"},
                    {"status": "yes", "since": "1.1", "note": None, "link": None}]}
    legacy = {"feature": "legacy", "name": "legacy mode", "since": "1.0", "remove_in": "2.0", "removed": False,
              "without_period": False, "state": "deprecated", "replacement": "mode = 'safe'",
              "message": "Legacy mode is slow"}
    assert data["deprecations"] == [legacy]
    assert next(f for f in data["features"] if f["id"] == "legacy")["deprecated"] == legacy
    assert data["legend"][0] == {"status": "yes", "symbol": "✅", "meaning": "supported"}
    # Config entries carry values, not display strings.
    by_path = {entry["path"]: entry for entry in data["config"]}
    assert by_path["mode"] == {"path": "mode", "type": "str", "nullable": False, "choices": ["fast", "safe", "legacy"],
                               "min": None, "max": None, "has_default": True, "default": "safe", "fact": False, "classes": False, "derive": None, "since": None,
                               "until": None, "choice_versions": [], "doc": "How | to run"}
    assert (by_path["workers"]["min"], by_path["workers"]["max"], by_path["workers"]["default"]) == (1, 64, 1)
    # Adjustments as data: a constant, an unset (null), a copy (from); runners as ids, priority order.
    assert data["adjustments"] == [
        {"id": "fast_ratio", "name": "fast mode lowers the ratio", "runners": [], "when": "mode == 'fast' and ratio > 0.25",
         "set": [{"path": "ratio", "value": 0.25, "from": None}, {"path": "log_dir", "value": None, "from": None}],
         "override": True, "level": "warning", "message": "Fast mode caps the ratio at 0.25 (not {ratio}) and writes no logs", "says": "changes",
         "since": "1.0", "until": None, "links": ["https://example.org/fast", "https://example.org/fast-logs"]},
        {"id": "threads_per_worker", "name": "a thread per worker", "runners": ["v2", "v1"], "when": "workers > 16",
         "set": [{"path": "threads", "value": None, "from": "workers"}], "override": False, "level": "info",
         "message": None, "says": "changes", "since": None, "until": None, "links": []},
        {"id": "v2_threads", "name": "at most 32 threads on V2", "runners": ["v2"],
         "when": "threads is not None and threads > 32", "set": [{"path": "threads", "value": 32, "from": None}],
         "override": True, "level": "warning", "message": "Model Runner V2 runs at most 32 threads, not {threads}", "says": "changes",
         "since": None, "until": "2.0", "links": []}]
    assert [a["id"] for a in json.loads(render(KITCHEN, format="json", version="2.0"))["adjustments"]] == [
        "fast_ratio", "threads_per_worker"]  # v2_threads ends at 2.0
    default = json.loads(render(DEFAULT, format="json", tables=["config"]))
    _validate_json(default)
    entries = {entry["path"]: entry for entry in default["config"]}
    assert entries["cache_config.mamba_cache_mode"]["choices"] == ["none", "align", "all"]
    assert entries["speculative_config.draft_model_config.architectures"]["default"] == []
    processors = entries["model_config.logits_processors"]
    assert (processors["nullable"], processors["default"], processors["classes"]) == (True, None, True)
    assert entries["speculative_config"] == {
        "path": "speculative_config", "type": "section", "nullable": True, "choices": None, "min": None, "max": None,
        "has_default": True, "default": None, "fact": False, "classes": False, "derive": None, "since": None, "until": None, "choice_versions": [],
        "doc": entries["speculative_config"]["doc"]}
    assert set(default) == {"format", "generated_by", "matrix", "version", "runners", "config"}


def _validate_json(data):
    jsonschema.Draft202012Validator(json_schema()).validate(data)


def test_the_config_reference_defines_each_derived_field():
    """A user trial: the support table showed ``rows_per_page < 2`` and no table said what
    rows_per_page is (a derived field is not a value of a config)."""
    m = matrix.loads('[matrix]\nname = "d"\nversion = "1.0"\n[config]\n'
                     'page = { type = "int", choices = [4, 8], default = 8 }\n'
                     'row = { type = "int", min = 1, max = 8, default = 1 }\n'
                     'rows = { type = "int", derive = "page // row" }\n'
                     '[features.wide]\nname = "wide rows"\nwhen = "rows < 2"\nsupport = { a = "yes" }\n',
                     runners={"a": {"name": "A", "priority": 1}})
    lines = render(m, format="markdown", tables=["config"]).splitlines()
    assert "| `rows` | int; derived: page // row |  | derived |  |" in lines
    data = json.loads(render(m, format="json", tables=["config"]))
    jsonschema.Draft202012Validator(json_schema()).validate(data)
    assert [(e["path"], e["derive"]) for e in data["config"]] == [("page", None), ("row", None), ("rows", "page // row")]

def test_the_json_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(json_schema())
    assert json_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_every_status_is_written_in_words_and_text_only_drops_the_symbols():
    text = render(KITCHEN, format="markdown", version="1.1", tables=["support"])
    lines = text.splitlines()
    legend = next(i for i, line in enumerate(lines) if line.startswith("Legend: "))
    table = next(i for i, line in enumerate(lines) if line.startswith("| Feature"))
    assert legend < table  # the legend comes before the table
    assert "| n-gram drafts | `spec.method == 'ngram'` | [❌ no](<https://example.org/ngram>) → ✅ yes since 1.1 | ✅ yes |  |" in lines
    plain = render(KITCHEN, format="markdown", version="1.1", tables=["support"], symbols=False)
    assert "| n-gram drafts | `spec.method == 'ngram'` | [no](<https://example.org/ngram>) → yes since 1.1 | yes |  |" in plain.splitlines()
    assert not any(symbol in plain for symbol in "✅❌🟠🧪")
    assert "| many workers | `workers > 8` | ✅ yes | 🟠 partial [^1] |  |" in lines  # a footnote reference
    assert "[^1]: Scales to 16 workers" in lines
    assert "Legend: yes: supported · no: not supported · partial: supported with a caveat (see the note)" in plain
    html_page = render(KITCHEN, format="html", version="1.1", tables=["support"])
    assert ('<td class="cell status-yes"><a href="https://example.org/ngram"><span title="no: not supported">'
            '<span aria-hidden="true">❌</span> <span class="word">no</span></span></a> → <span title="yes: supported">'
            '<span aria-hidden="true">✅</span> <span class="word">yes</span></span> since 1.1</td>') in html_page


def test_tables_on_their_own():
    text = render(DEFAULT, format="markdown", tables=["config"])
    assert "### Config reference" in text and "### Support matrix" not in text and "### Deprecations" not in text
    with pytest.raises(UsageError) as excinfo:
        render(DEFAULT, format="markdwn")
    assert str(excinfo.value) == "Unknown format 'markdwn' (expected one of 'html', 'json', 'markdown', 'rst'), did you mean 'markdown'"
    with pytest.raises(UsageError) as excinfo:
        render(DEFAULT, tables=["suport"])
    assert str(excinfo.value) == "Unknown table 'suport' (expected one of 'adjustments', 'capabilities', 'columns', 'config', 'deprecations', 'overlay', 'pairs', 'release-notes', 'runners', 'support'), did you mean 'support'"


_NASTY = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(lambda s: s.strip())


@settings(max_examples=25)
@given(matrices(max_features=4), st.lists(_NASTY, min_size=4, max_size=4, unique=True), _NASTY)
def test_renderers_never_raise_and_escape_what_they_must(m, names, note):
    features = tuple(attrs.evolve(f, name=name, note=note) for f, name in zip(m.features, names))
    # Two adjustments with hostile text: one before the choice (a constant), one of a runner (a copy).
    path = m.schema.declared[0].path if m.schema.declared else "x"
    adjustments = (matrix.Adjustment("a1", names[1], matrix.Predicate("True"), {path: note}, message=names[2]),
                   matrix.Adjustment("a2", names[3], matrix.Predicate("False"), {path: matrix.schema.From(path)},
                                     runners=(m.runners[0].id,), override=False, level="info",
                                     links=("https://example.org/a2",)))
    m = attrs.evolve(m, name=names[0], features=features, adjustments=adjustments)
    for format in FORMATS:
        text = render(m, format=format)
        assert text.endswith("\n")
    _check_html(render(m, format="html"))
    data = json.loads(render(m, format="json"))
    assert data["matrix"] == names[0]
    _validate_json(data)
    markdown = render(m, format="markdown")
    if m.features_at():
        header, rows = _markdown_table(markdown, "### Support matrix: ")
        assert len(rows) == len(m.features_at())
        assert all(len(r) == len(header) for r in rows)
    else:
        assert "\nNo gate is in force at this version.\n" in markdown
    header, rows = _markdown_table(markdown, "### Adjustments: ")
    assert (len(rows), {len(r) for r in rows}) == (2, {len(header)})
    assert [a["name"] for a in data["adjustments"]] == [names[1], names[3]]
    assert _docutils_warnings(render(m, format="rst")) == ""


# --- the command line -------------------------------------------------------------------

def call(*args):
    out, err = io.StringIO(), io.StringIO()
    status = run(list(args), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


PROSE = "# Title\r\n\r\nBefore, with trailing spaces   \r\n<!-- matrix:begin -->\r\nold\r\n<!-- matrix:end -->\r\nAfter\r\n"


def test_inject_changes_only_the_marked_region(tmp_path):
    page = tmp_path / "page.md"
    page.write_bytes(PROSE.encode())
    status, out, err = call("docs", "--matrix", str(DATA / "valid" / "kitchen_sink.toml"), "--inject", str(page))
    assert (status, out, err) == (0, "", "")
    after = page.read_bytes().decode()
    head, _, rest = after.partition("<!-- matrix:begin -->\r\n")
    body, _, tail = rest.partition("<!-- matrix:end -->\r\n")
    assert head == "# Title\r\n\r\nBefore, with trailing spaces   \r\n"
    assert tail == "After\r\n"
    expected = render(KITCHEN, format="markdown").replace("\n", "\r\n")
    assert body == "\r\n" + expected + "\r\n"
    # Fresh now: --check agrees and writes nothing.
    assert call("docs", "--matrix", str(DATA / "valid" / "kitchen_sink.toml"), "--inject", str(page), "--check") == (0, "", "")


def test_check_reports_a_stale_file_with_a_diff_and_writes_nothing(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- matrix:begin -->\nold\n<!-- matrix:end -->\n")
    status, out, err = call("docs", "--matrix", str(DATA / "valid" / "kitchen_sink.toml"), "--inject", str(page), "--check", "--table", "deprecations")
    assert status == 1
    assert page.read_text() == "<!-- matrix:begin -->\nold\n<!-- matrix:end -->\n"
    assert out.splitlines()[:5] == [
        f"--- {page} (on disk)",
        f"+++ {page} (generated)",
        "@@ -1,3 +1,17 @@",
        " <!-- matrix:begin -->",
        "-old",
    ]
    assert err == f"matrix: {page} is stale: run the same command without --check to update it\n"


def test_output_writes_whole_files_and_checks_them(tmp_path):
    target = tmp_path / "matrix.rst"
    assert call("docs", "--output", str(target), "--check")[0] == 1
    assert not target.exists()
    assert call("docs", "--output", str(target)) == (0, "", "")
    assert target.read_text() == render(DEFAULT, format="rst")
    assert call("docs", "--output", str(target), "--check") == (0, "", "")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("no markers\n", "page.md: no '<!-- matrix:begin -->' marker line: add one '<!-- matrix:begin -->' line and one '<!-- matrix:end -->' line"),
        ("<!-- matrix:begin -->\n", "page.md: no '<!-- matrix:end -->' marker line: add one '<!-- matrix:begin -->' line and one '<!-- matrix:end -->' line"),
        ("<!-- matrix:begin -->\n<!-- matrix:begin -->\n<!-- matrix:end -->\n", "page.md: '<!-- matrix:begin -->' stands 2 times (lines 1, 2); keep one"),
        ("<!-- matrix:end -->\n<!-- matrix:begin -->\n", "page.md: '<!-- matrix:end -->' (line 1) comes before '<!-- matrix:begin -->' (line 2)"),
    ],
)
def test_broken_markers_exit_2_and_leave_the_file_alone(tmp_path, monkeypatch, content, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "page.md").write_text(content)
    assert call("docs", "--matrix", "default", "--inject", "page.md") == (2, "", f"matrix: error: {message}\n")
    assert (tmp_path / "page.md").read_text() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


def test_rst_files_use_rst_markers(tmp_path):
    page = tmp_path / "page.rst"
    page.write_text("Title\n=====\n\n.. matrix:begin\n\n.. matrix:end\n\nEnd.\n")
    assert call("docs", "--inject", str(page), "--matrix", str(DATA / "valid" / "kitchen_sink.toml"))[0] == 0
    assert _docutils_warnings(page.read_text()) == ""
    assert page.read_text().startswith("Title\n=====\n\n.. matrix:begin\n\n.. Generated by `matrix docs`")


def test_a_failure_while_rendering_leaves_the_target_untouched(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text(PROSE)
    from matrix import _docs_text

    def broken(doc, tables, symbols):
        raise RuntimeError("renderer broke")

    monkeypatch.setattr(_docs_text, "markdown", broken)
    with pytest.raises(RuntimeError, match="renderer broke"):
        call("docs", "--inject", str(page))
    assert page.read_bytes() == PROSE.encode()


def test_a_failure_while_writing_leaves_the_target_untouched(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text(PROSE)

    def broken_fsync(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    status, out, err = call("docs", "--inject", str(page))
    assert (status, out) == (2, "")
    assert err == f"matrix: error: Cannot write {page}: No space left on device\n"
    assert page.read_bytes() == PROSE.encode()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.md"]


def test_docs_usage_errors(tmp_path):
    assert call("docs", "--check") == (2, "", "matrix: error: --check compares with a file: give --output FILE or --inject FILE\n")
    assert call("docs", "--inject", str(tmp_path / "x.json")) == (2, "", "matrix: error: --inject puts tables into a page: use --format markdown, rst or html\n")
    assert call("docs", "--inject", str(tmp_path / "missing.md")) == (2, "", f"matrix: error: {tmp_path / 'missing.md'}: no such file to inject into\n")
    status, _, err = call("docs", "--output", "a", "--inject", "b")
    assert status == 2 and err == "matrix: error: argument --inject: not allowed with argument --output\n"


def test_groups_are_headings_over_their_features_and_ungrouped_features_come_last():
    text = render(DEFAULT, format="markdown", tables=["support"], version="0.30.0")
    _, rows = _markdown_table(text, "### Support matrix: vLLM model runners 0.30.0")
    headings = [r[0] for r in rows if r[0].startswith("**")]
    assert headings == ["**Compilation and CUDA graphs**", "**Parallelism**", "**Speculative decoding**",
                        "**Dual batch overlap**", "**Models and sampling**", "**Platform**"]
    under = {}
    current = None
    for r in rows:
        if r[0].startswith("**"):
            current = r[0].strip("*")
        else:
            under.setdefault(current, []).append(_plain_name(r[0]))
    for feature in DEFAULT.features_at("0.30.0"):
        assert feature.name in under[feature.group]
    data = json.loads(render(DEFAULT, format="json", tables=["support"]))
    assert {f["id"]: f["group"] for f in data["features"]}["dbo_lora"] == "Dual batch overlap"
    m = matrix.loads('[matrix]\nname = "g"\nversion = "1"\n[features.a]\nname = "A"\nwhen = "x"\nsupport.default = "yes"\n'
                     '[features.b]\nname = "B"\nwhen = "y"\ngroup = "Kernels"\nsupport.default = "no"\n',
                     runners={"r": {"name": "R", "priority": 1}})
    lines = render(m, format="markdown", tables=["support"]).splitlines()
    table = lines[next(i for i, line in enumerate(lines) if line.startswith("| Feature")):]
    assert table[2:6] == ["| **Kernels** | | | |", "| B | `y` | ❌ no |  |", "| **Other features** | | | |",
                          "| A | `x` | ✅ yes |  |"]
    plain = render(m.__class__(m.name, m.version, m.runners, tuple(attrs.evolve(f, group=None) for f in m.features),
                               m.schema), format="markdown", tables=["support"])
    assert "**" not in plain  # a matrix without groups keeps the plain layout


def test_the_runners_table_in_every_format():
    text = render(DEFAULT, format="markdown", tables=["runners"])
    assert text.splitlines()[2:8] == [
        "### Runners: vLLM model runners", "",
        "| Runner | Name | Priority | Description | Links |", "|---|---|---|---|---|",
        "| `v2` | Model Runner V2 | 20 | The preferred GPU model runner: the default for all models since vLLM PR "
        "#53183 | [link 1](<https://github.com/vllm-project/vllm/pull/53183>) |",
        "| `v1` | Model Runner V1 | 10 | The fallback GPU model runner, itself deprecated upstream; chosen when "
        "something blocks V2 |  |",
    ]
    assert json.loads(render(DEFAULT, format="json", tables=["runners"]))["runners"][0] == {
        "id": "v2", "name": "Model Runner V2", "priority": 20,
        "description": "The preferred GPU model runner: the default for all models since vLLM PR #53183",
        "links": ["https://github.com/vllm-project/vllm/pull/53183"]}
    assert _docutils_warnings(render(DEFAULT, format="rst", tables=["runners"])) == ""
    page = render(DEFAULT, format="html", tables=["runners"])
    assert '<meta name="viewport" content="width=device-width, initial-scale=1" />' in page
    assert '<tr><th scope="row"><code>v2</code></th><td>Model Runner V2</td><td>20</td>' in page
    assert "<p><em>Generated" not in page  # the banner is an HTML comment only


_REMOVED = matrix.loads(
    '[matrix]\nname = "r"\nversion = "2.0"\n[config]\n"x" = "bool"\n"y" = "bool"\n'
    '[features.a]\nname = "A"\nwhen = "x"\nsupport = { r = "yes", s = "no" }\n'
    'deprecated = { since = "1.0", remove_in = "2.0", removed = true, replacement = "y" }\n'
    '[features.b]\nname = "B"\nwhen = "y"\nsupport = { r = "yes", s = "yes" }\n',
    runners={"r": {"name": "R", "priority": 2}, "s": {"name": "S", "priority": 1}})
_REMOVED_MEANING = "the feature no longer exists; a config that uses it is refused before any runner is chosen"


def test_a_removed_gate_says_removed_for_every_runner_in_every_format():
    # resolve() refuses a config that uses it before any runner is chosen: no runner's column
    # may say yes (every one did, whatever the runners had said before the removal).
    with pytest.raises(RemovedFeatureError):
        _REMOVED.resolve({"x": True, "y": False}, runner="r")
    lines = render(_REMOVED, format="markdown", tables=["support"]).splitlines()
    assert lines[4] == f"Legend: ✅ yes: supported · ⛔ removed: {_REMOVED_MEANING}"
    assert lines[8] == "| A | `x` | ⛔ removed since 2.0 | ⛔ removed since 2.0 | deprecated in 1.0 · removed in 2.0 · use y |"
    before = render(_REMOVED, format="markdown", tables=["support"], version="1.5").splitlines()
    assert before[8] == "| A | `x` | ✅ yes | ❌ no | deprecated in 1.0 · to be removed in 2.0 · use y |"
    assert render(_REMOVED, format="markdown", tables=["support"], symbols=False).splitlines()[8] == (
        "| A | `x` | removed since 2.0 | removed since 2.0 | deprecated in 1.0 · removed in 2.0 · use y |")
    rst = render(_REMOVED, format="rst", tables=["support"])
    assert rst.splitlines()[15:20] == ["   * - A", "     - ``x``", "     - ⛔ removed since 2.0", "     - ⛔ removed since 2.0",
                                       "     - deprecated in 1.0 · removed in 2.0 · use y"]
    assert _docutils_warnings(rst) == ""
    removed = (f'<td class="cell status-removed"><span title="removed: {_REMOVED_MEANING}"><span aria-hidden="true">⛔'
               '</span> <span class="word">removed</span></span> since 2.0</td>')
    page = render(_REMOVED, format="html", tables=["support"], standalone=False).splitlines()
    assert page[page.index('<th scope="row" id="feature-a">A</th>') + 2:][:2] == [removed, removed]
    data = json.loads(render(_REMOVED, format="json", tables=["support"]))
    _validate_json(data)
    cell = {"status": "removed", "note": None, "link": None, "since": "2.0",
            "history": [{"status": "removed", "since": "2.0", "note": None, "link": None}]}
    assert data["features"][0]["support"] == {"r": cell, "s": cell}
    assert data["legend"][-1] == {"status": "removed", "symbol": "⛔", "meaning": _REMOVED_MEANING}


def test_the_runners_table_shows_former_ids_and_redirects_in_every_format():
    from tests.test_resolver import SGLANG, SGLANG_RUNNERS

    m = matrix.loads(SGLANG, runners=SGLANG_RUNNERS)
    text = render(m, tables=["runners"], standalone=False)
    assert text.splitlines()[4:12] == [
        "| Runner | Name | Priority | Description | Links | Former ids | Redirects |",
        "|---|---|---|---|---|---|---|",
        "| `fa3` | FlashAttention 3 | 40 |  |  |  | to `triton` when `kv_cache_dtype == 'fp8_e5m2'` |",
        "| `triton` | Triton | 30 |  |  |  | to `torch_native` when `kv_cache_dtype == 'fp8_e5m2'` |",
        "| `intel_amx` | Intel AMX | 20 |  |  |  | to `torch_native` when `not has_amx` |",
        "| `torch_native` | Torch native | 10 |  |  |  |  |",
        "| `dsa` | DSA | 5 |  |  | `nsa` (deprecated since 0.5, to be removed in 2.0); `old_dsa` (removed in 0.8) |  |",
        "",
    ]
    assert "<td><code>nsa</code> (deprecated since 0.5, to be removed in 2.0); <code>old_dsa</code> (removed in 0.8)</td>" \
        in render(m, format="html", tables=["runners"], standalone=False)
    assert "     - to ``triton`` when ``kv_cache_dtype == 'fp8_e5m2'``\n" in render(m, format="rst", tables=["runners"])
    data = json.loads(render(m, format="json", tables=["runners"]))
    _validate_json(data)
    assert data["runners"][0]["redirects"] == [{"to": "triton", "when": "kv_cache_dtype == 'fp8_e5m2'", "message": None,
                                                "since": None, "until": None}]
    assert data["runners"][4]["aliases"][1] == {"id": "old_dsa", "since": "0.3", "remove_in": "0.8", "removed": True,
                                                "message": None}
    # Before a former id's deprecation, and a redirect outside its window, as the version says.
    windowed = {**SGLANG_RUNNERS, "fa3": {"name": "FlashAttention 3", "priority": 40, "redirects": [
        {"to": "triton", "when": "kv_cache_dtype == 'fp8_e5m2'", "since": "0.9"}]}}
    early = render(matrix.loads(SGLANG, runners=windowed), tables=["runners"], version="0.4", standalone=False)
    assert "| `fa3` | FlashAttention 3 | 40 |  |  |  |  |" in early.splitlines()
    assert "| `dsa` | DSA | 5 |  |  | `nsa` (deprecated from 0.5); `old_dsa` (deprecated since 0.3, to be removed in 0.8) |  |" \
        in early.splitlines()
    # A former id's deprecation and removal are changes of their releases (a user trial found them
    # missing), up to the version.
    assert render(m, tables=["deprecations"], standalone=False).splitlines()[-5:] == [
        "| Release | Feature | Change |",
        "|---|---|---|",
        "| 0.3 | runner id 'old\\_dsa' | deprecated: use 'dsa' |",
        "| 0.5 | runner id 'nsa' | deprecated: use 'dsa' |",
        "| 0.8 | runner id 'old\\_dsa' | removed: use 'dsa' |"]
    data = json.loads(render(m, format="json", tables=["deprecations"], version="0.5"))
    _validate_json(data)
    assert data["changes"] == [
        {"version": "0.3", "feature": "old_dsa", "kind": "deprecated", "text": "deprecated: use 'dsa'", "runner": "dsa"},
        {"version": "0.5", "feature": "nsa", "kind": "deprecated", "text": "deprecated: use 'dsa'", "runner": "dsa"}]
    # A matrix with neither has neither column, nor the JSON keys.
    assert "Former ids" not in render(KITCHEN, tables=["runners"])
    assert "aliases" not in json.loads(render(KITCHEN, format="json", tables=["runners"]))["runners"][0]


def test_the_runners_table_says_former_ids_and_redirects_only_where_a_runner_has_them():
    """A user trial read sentences of redirects under a runners table where no runner had one:
    each column, and each sentence after the table, only for what the matrix has."""
    from tests.test_resolver import SGLANG, SGLANG_RUNNERS

    both = render(matrix.loads(SGLANG, runners=SGLANG_RUNNERS), tables=["runners"], standalone=False).splitlines()
    assert both[-1] == (
        "A runner asked for by a former id is that runner (with a deprecation warning); a request for a runner goes "
        "to the runner of its first redirect whose condition holds (automatic choice ignores redirects).")
    renamed = {k: {"name": r["name"], "priority": r["priority"], **({"aliases": r["aliases"]} if "aliases" in r else {})}
               for k, r in SGLANG_RUNNERS.items()}
    former = render(matrix.loads(SGLANG, runners=renamed), tables=["runners"], standalone=False).splitlines()
    assert former[4:6] == ["| Runner | Name | Priority | Description | Links | Former ids |", "|---|---|---|---|---|---|"]
    assert former[10] == "| `dsa` | DSA | 5 |  |  | `nsa` (deprecated since 0.5, to be removed in 2.0); `old_dsa` (removed in 0.8) |"
    assert former[-1] == "A runner asked for by a former id is that runner (with a deprecation warning)."
    redirecting = {k: {n: v for n, v in r.items() if n != "aliases"} for k, r in SGLANG_RUNNERS.items()}
    redirects = render(matrix.loads(SGLANG, runners=redirecting), tables=["runners"], standalone=False).splitlines()
    assert redirects[4:7] == ["| Runner | Name | Priority | Description | Links | Redirects |", "|---|---|---|---|---|---|",
                              "| `fa3` | FlashAttention 3 | 40 |  |  | to `triton` when `kv_cache_dtype == 'fp8_e5m2'` |"]
    assert redirects[-1] == ("A request for a runner goes to the runner of its first redirect whose condition holds "
                             "(automatic choice ignores redirects).")
    # Redirects declared but none in force at the version: neither the column nor the sentence.
    windowed = {k: {**r, "redirects": [{**d, "since": "0.9"} for d in r["redirects"]]} if "redirects" in r else r
                for k, r in redirecting.items()}
    early = render(matrix.loads(SGLANG, runners=windowed), tables=["runners"], version="0.4", standalone=False)
    assert "Redirects" not in early and "redirect" not in early.splitlines()[-1]
    assert early.splitlines()[-1].startswith("The runner of highest priority that nothing blocks is chosen")


def test_a_matrix_without_adjustments_has_no_adjustments_table_in_any_format():
    # _REMOVED declares no [adjustments]: asked for, the table is left out (as capabilities is),
    # so its default tables render as before the table existed.
    others = [t for t in DEFAULT_TABLES if t != "adjustments"]
    for format in FORMATS:
        assert render(_REMOVED, format=format) == render(_REMOVED, format=format, tables=others)
    assert render(_REMOVED, tables=["adjustments"]) == "<!-- Generated by `matrix docs` from <string>: do not edit by hand. -->\n"
    data = json.loads(render(_REMOVED, format="json", tables=["adjustments"]))
    _validate_json(data)
    assert list(data) == ["format", "generated_by", "matrix", "version", "runners"]
    # A matrix whose adjustments all start later shows the table, saying none is in force.
    assert render(DEFAULT, version="0.31.0", tables=["adjustments"]).splitlines()[2:] == [
        "### Adjustments: vLLM model runners 0.31.0", "", "No adjustment is in force at this version."]


_RELEASED = matrix.loads(
    '[matrix]\nname = "m"\nversion = "2.0"\n[config]\n"y" = { type = "bool", default = false, since = "1.0" }\n'
    '[features.fy]\nname = "Y"\nwhen = "y"\nsince = "2.0"\nsupport = { a = "no", b = "yes" }\n',
    runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})


def test_the_release_notes_say_what_each_release_changed_for_users_with_a_witness():
    assert "release-notes" in TABLES and "release-notes" not in DEFAULT_TABLES  # a diff per pair of releases
    assert render(_RELEASED, tables=("release-notes",)) == """\
<!-- Generated by `matrix docs` from <string>: do not edit by hand. -->

### What changed for users: m

What each release changed for users: every region of configs that resolves differently from the release \
before it (matrix diff of the two), breaking changes first, each with a config that shows it.

| Release | Level | Change | What | Configs | Witness |
|---|---|---|---|---|---|
| 1.0 | breaking | `config-rejected` | Config 'y': a value that was accepted is now a config error (Config 'y': Is None, \
but the schema does not declare it nullable) | `y is None` | `{"y": null}` |
| 2.0 | breaking | `request-refused` | Asking for A: A → refused | `y` | `{"y": true}` |
| 2.0 | behaviour | `runner-changed` | Automatic choice: A → B (fallback) | `y` | `{"y": true}` |
"""
    data = json.loads(render(_RELEASED, format="json", tables=("release-notes",)))
    jsonschema.validate(data, json_schema())
    # The first release the file names, from what held before it (a user trial: its changes were missing).
    assert (data["release_notes"], data["release_gaps"]) == ([
        {"version": "1.0", "previous": None, "id": "config-rejected", "level": "breaking",
         "message": "Config 'y': a value that was accepted is now a config error (Config 'y': Is None, but the "
                    "schema does not declare it nullable)", "region": "y is None", "witness": {"y": None},
         "features": []},
        {"version": "2.0", "previous": "1.0", "id": "request-refused", "level": "breaking",
         "message": "Asking for A: A → refused", "region": "y", "witness": {"y": True}, "features": ["fy"]},
        {"version": "2.0", "previous": "1.0", "id": "runner-changed", "level": "behaviour",
         "message": "Automatic choice: A → B (fallback)", "region": "y", "witness": {"y": True}, "features": ["fy"]},
    ], [])
    html = render(_RELEASED, format="html", tables=("release-notes",), standalone=False)
    assert html.splitlines()[-3] == (
        '<tr><th scope="row">2.0</th><td>behaviour</td><td><code>runner-changed</code></td>'
        '<td>Automatic choice: A → B (fallback)</td><td><code>y</code></td><td><code>{&quot;y&quot;: true}</code></td></tr>')
    assert render(_RELEASED, format="rst", tables=("release-notes",)).splitlines()[-6:] == [
        "   * - 2.0", "     - behaviour", "     - ``runner-changed``", "     - Automatic choice\\: A → B (fallback)",
        "     - ``y``", '     - ``{"y": true}``']


def test_the_release_notes_compare_the_first_release_with_what_the_file_says_held_before_it():
    # A user trial: `no`, then `yes` from 1.1, the first version the file names; the notes said
    # "No release changed what a config resolves to" while the deprecations table showed the change.
    m = matrix.loads('[matrix]\nname = "m"\nversion = "1.2"\n[config]\n"y" = { type = "bool", default = false }\n'
                     '[features.fy]\nname = "Y"\nwhen = "y"\nsupport.a = [{ status = "no" }, { status = "yes", '
                     'since = "1.1" }]\nsupport.b = "yes"\n',
                     runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    assert render(m, tables=("release-notes",)).splitlines()[-2:] == [
        '| 1.1 | behaviour | `runner-changed` | Automatic choice: B (fallback) → A | `y` | `{"y": true}` |',
        '| 1.1 | behaviour | `request-served` | Asking for A: refused → A | `y` | `{"y": true}` |']
    assert {n["previous"] for n in json.loads(render(m, format="json", tables=("release-notes",)))["release_notes"]} \
        == {None}


def test_the_release_notes_of_the_default_matrix_leave_nothing_uncompared():
    # The diff compares a runner's own adjustments (issue 28: it said "Not compared: adjustments"
    # for both releases), and V2's blockers on its effective config where its adjustments write
    # what they read (it said "Not compared: the blockers of Model Runner V2 …" for both); a long region is said by its first conditions in the table, whole in the JSON.
    from matrix.diff import brief

    data = json.loads(render(DEFAULT, format="json", tables=("release-notes",)))
    jsonschema.validate(data, json_schema())
    # What the diff does not compare is said where the matrix has what produces it (a removal, a
    # gate in force for requests only, redirects), never claimed unchanged (a preference passed
    # over is compared: issue 28).
    said = {"refusal": "the warnings said beside a refusal: a fallback or a preference that led to it, and the words of a redirect or "
                       "an override that led to it (the answers for a config or request that is refused may differ "
                       "unseen)",
            # An adjustment's words that a config's own value fills: the witness's are said.
            "cudagraphs": "the words of the warning of CUDA graphs off under stock torch.compile where a config's own "
                          "value fills them (compilation_config.cudagraph_mode: the witness's are said) (the answers "
                          "for a config it warns may differ unseen)",
            "max_model_len": "the words of the warning of max_model_len lowered to the draft model's where a config's "
                             "own value fills them (speculative_config.draft_model_config.max_model_len, "
                             "model_config.max_model_len: the witness's are said) (the answers for a config it warns "
                             "may differ unseen)"}
    # A request's blockers are compared (a gate in force for requests only: each release has one).
    gaps = [(None, "0.30.0", ("refusal",)), ("0.30.0", "0.31.0", ("refusal",)),
            ("0.31.0", "0.32.0", ("cudagraphs", "refusal")), ("0.32.0", "0.33.0", ("max_model_len", "refusal"))]
    assert data["release_gaps"] == [{"version": new, "previous": old, "text": f"Not compared: {said[k]}"}
                                    for old, new, keys in gaps for k in keys]
    # After the table, each once, with the releases whose diff did not compare it (a user trial
    # read the same lines again under every release); the JSON has each release's own.
    table = render(DEFAULT, tables=("release-notes",))
    assert [line for line in table.splitlines() if "Not compared" in line] == [
        # Markdown escapes the underscores of the paths said.
        f"{releases}: Not compared: {said[k]}".replace("_config", "\\_config").replace("_mode", "\\_mode")
        .replace("max_model", "max\\_model").replace("_len", "\\_len")
        for releases, k in [("Every release", "refusal"), ("Release 0.32.0", "cudagraphs"),
                            ("Release 0.33.0", "max_model_len")]]
    assert [line for line in render(DEFAULT, tables=("release-notes",), version="0.32.0").splitlines()
            if "Not compared" in line][-1] == f"Release 0.32.0: Not compared: {said['cudagraphs']}".replace(
        "_config", "\\_config").replace("_mode", "\\_mode")
    longest = max(data["release_notes"], key=lambda n: len(n["region"]))["region"]
    assert len(longest) > 1000 and f"`{brief(longest)}`" in table and longest not in table


# --- the columns table ([docs.columns]) ---------------------------------------------------------

_COLUMNS = """
[matrix]
name = "paged"
version = "1.0"

[config]
page = { type = "int", nullable = true, min = 1 }
kv = { type = "str", default = "auto", choices = ["auto", "fp8", "fp8_e5m2", "fp4"] }

[requirements]
K = { name = "KV", reason = "{kv} is not served" }

[adjustments.pages]
name = "pages of 64"
when = "page is not None and page not in [32, 64]"
set = { page = 64 }
runners = ["fast"]

[adjustments.fill]
name = "page 1"
when = "page is None"
set = { page = 1 }
override = false

[docs.columns.page]
name = "Page > 1"
when = "page > 1"

[docs.columns.fp8]
name = "FP8 KV"
when = "kv in ['fp8', 'fp8_e5m2']"

[docs.columns.never]
name = "Page 0"
when = "page is not None and page < 1"

[docs.columns.window]
name = "Sliding window"
declared = { fast = true, slow = false }
doc = "a kernel capability"

[docs.rows.fast]

[docs.rows.slow]
where = "kv != 'fp4'"

[docs.rows.slow_fp8]
runner = "slow"
name = "Slow, FP8 e4m3"
where = "kv == 'fp8'"
"""
_COLUMN_RUNNERS = {
    "fast": {"name": "Fast", "priority": 2, "requires": {"K": "kv != 'fp8_e5m2'"}},
    "slow": {"name": "Slow", "priority": 1,
             "redirects": [{"to": "fast", "when": "kv == 'fp8'"}]},
}


def test_the_columns_table_answers_each_question_per_row_from_the_rules():
    m = matrix.loads(_COLUMNS, runners=_COLUMN_RUNNERS)
    text = render(m, tables=["columns"])
    table = text[text.index("| Runner"):].splitlines()
    assert table == [
        "| Runner | Where | Page \\> 1 | FP8 KV | Page 0 | Sliding window |",
        "|---|---|---|---|---|---|",
        "| Fast | every config | where page in \\[32, 64\\]: ✅ yes; where page: a value from 2 to 31 or a value from 33 to 63"
        " or a value ≥ 65: 🔧 adjusted: page = 64 (pages) | where kv == 'fp8': 🔧 adjusted: page = 64 (pages);"
        " where kv == 'fp8\\_e5m2': ❌ no: K"
        " | ➖ never | ✅ yes 📝 declared |",
        "| Slow | `kv != 'fp4'` | where kv in \\['auto', 'fp8\\_e5m2'\\]: ✅ yes; where kv == 'fp8': ↪️ redirected to fast"
        " | where kv == 'fp8\\_e5m2': ✅ yes; where kv == 'fp8': ↪️ redirected to fast"
        " | ➖ never | ❌ no 📝 declared |",
        "| Slow, FP8 e4m3 | `kv == 'fp8'` | ↪️ redirected to fast | ↪️ redirected to fast | ➖ never |  |",
    ]
    assert "Page \\> 1: `page > 1`" in text and "Sliding window: declared (a kernel capability)" in text
    assert text.count("Legend: ✅ yes: served as given · 🔧 adjusted:") == 1
    words = render(m, tables=["columns"], symbols=False)
    assert "| Fast | every config | where page in \\[32, 64\\]: yes; where page: a value from 2 to 31" in words
    assert "| ➖" not in words and "| never | yes (declared) |" in words


def test_the_columns_table_as_json_is_data_the_schema_describes():
    m = matrix.loads(_COLUMNS, runners=_COLUMN_RUNNERS)
    data = json.loads(render(m, format="json", tables=["columns"]))
    jsonschema.validate(data, json_schema())
    assert data["columns"]["columns"][3] == {"id": "window", "name": "Sliding window", "when": None,
                                             "declared": {"fast": True, "slow": False}, "doc": "a kernel capability"}
    fast = data["columns"]["rows"][0]
    assert (fast["id"], fast["runner"], fast["where"]) == ("fast", "fast", None)
    assert fast["cells"]["fp8"] == {"kind": "derived", "declared": None, "inexact": [], "note": None, "answers": [
        {"kind": "adjusted", "to": None, "ids": [], "sets": [{"path": "page", "value": "64", "adjustment": "pages"}],
         "reason": None, "where": [["kv == 'fp8'"]]},
        {"kind": "refused", "to": None, "ids": ["K"], "sets": [], "reason": None, "where": [["kv == 'fp8_e5m2'"]]}]}
    assert fast["cells"]["page"]["answers"][1]["sets"] == [{"path": "page", "value": "64", "adjustment": "pages"}]
    assert data["columns"]["rows"][2]["cells"]["window"]["kind"] == "undeclared"
    # Left out of a matrix without columns, and in the default set of one with them.
    assert "columns" not in json.loads(render(KITCHEN, format="json", tables=TABLES))
    assert "columns" in DEFAULT_TABLES and "### Columns: paged 1.0" in render(m)


def test_a_columns_cell_past_its_limit_is_undecided_never_guessed(monkeypatch):
    from matrix import _columns

    monkeypatch.setattr(_columns, "LIMIT", 3)
    m = matrix.loads(_COLUMNS, runners=_COLUMN_RUNNERS)
    text = render(m, tables=["columns"])
    assert "| Fast | every config | ❔ undecided: more than 3 classes of configs, the most one cell resolves | " in text


def _column_outcome(m, config, runner):
    """The README's answer of one config of a cell, from resolve (docs/reference/docs-tables.md)."""
    try:
        resolution = resolve(m, config, runner=runner)
    except matrix.ResolutionError as error:
        # After a redirect, the target's refusal, the target named.
        staged = error.resolution.staged_refusal
        to = None if staged else (error.resolution.to_dict()["redirected"] or {}).get("to")
        ids = {n.split(":")[1] for n in staged["requirements"]} if staged else \
            {getattr(g.origin, "kind", None) or g.id for g in error.resolution.unsupported.get(to or runner, ())}
        return ("refused", to, tuple(sorted(ids)) or "a reason")  # said by one config's reason: not compared
    if resolution.runner != runner:
        return ("redirected", resolution.runner)
    fills = {a.id for a in m.adjustments if not a.override}
    # Each new value as features.toml writes it: repr, a version as its text.
    sets = tuple((a.path, repr(str(a.after) if type(a.after).__name__ == "Version" else
                               list(a.after) if isinstance(a.after, tuple) else a.after), a.id)
                 for a in resolution.adjustments
                 if a.before != a.after and not (a.before is None and a.id in fills))
    return ("adjusted", sets) if sets else ("served",)


def _cell_outcomes(cell):
    out = set()
    for part in cell.parts:
        o = part.outcome
        out.add(("refused", o.to, tuple(sorted(o.ids)) or "a reason") if o.kind == "refused" else ("redirected", o.to) if o.kind == "redirected"
                else ("adjusted", o.sets) if o.kind == "adjusted" else ("served",))
    return out


def _column_reference(m, names, row, column):
    """The answers of one cell by the docs: every config of the fields the column and row read
    (the others at their defaults, the base role's field the row's runner), resolved."""
    paths = set(column.when.paths) | (set(row.where.paths) if row.where is not None else set())
    read = [n for n in names if n in paths or (n == "p" and "pd" in paths)]
    fixed = {}
    if m.roles:  # the role fields: None, the base's the runner asked for
        fixed.update({r.field: None for r in m.roles}, **{m.roles[0].field: row.runner})
    for n in names:
        field = m.schema.fields[n]
        if n not in read:
            if field.has_default:
                fixed[n] = field.default
            elif field.nullable:
                fixed[n] = None
            else:
                read.append(n)
    expected = set()
    for values in itertools.product(*(_FIELDS[n][1] for n in read)):
        config = {**fixed, **dict(zip(read, values))}
        if "l" in config and isinstance(config["l"], tuple):
            config["l"] = list(config["l"])
        if not column.when.evaluate(config, schema=m.schema) or \
                (row.where is not None and not row.where.evaluate(config, schema=m.schema)):
            continue
        expected.add(_column_outcome(m, config, row.runner))
    return expected


# At most 200 examples (CI's profile draws 500): 5 s of CI rather than 13, each example a
# matrix with up to five derived cells, every config of each resolved.
@settings(deadline=None, max_examples=min(settings.default.max_examples, 200))
@given(_small_matrices(adjustments=True, redirects=True, staged=True), st.data())
def test_columns_agree_with_brute_force_over_every_config(case, data):
    """Random small matrices (`test_check._small_matrices`: adjustments, redirects, staged
    requirements) with random columns and rows: each cell against resolve over every config of
    the cell's fields (the others at their defaults), as docs/reference/docs-tables.md defines it."""
    from matrix import _columns

    text, names, runners, _ = case
    atom = st.sampled_from([a for n in names for a in _ATOMS[n]])
    ids = sorted(runners)
    text += "\n[docs.columns.c0]\nname = \"C0\"\nwhen = " + json.dumps(data.draw(atom)) + "\n"
    if data.draw(st.booleans()):
        text += "[docs.columns.c1]\nname = \"C1\"\nwhen = " + json.dumps(data.draw(atom)) + "\n"
    if data.draw(st.booleans()):
        text += "[docs.rows.r0]\nrunner = \"" + data.draw(st.sampled_from(ids)) + "\"\nwhere = " \
            + json.dumps(data.draw(atom)) + "\n[docs.rows.r1]\nrunner = \"" + data.draw(st.sampled_from(ids)) + "\"\n"
    try:
        # Half the matrices with roles (`test_check._with_roles`): a row's runner is asked for
        # through the base role's field too, as a host asks.
        m = _with_roles(text, runners, names) if data.draw(st.booleans()) else matrix.loads(text, runners=runners)
    except matrix.LoadError:
        return
    rows, cells = _columns.cells(m, m.version)
    assert [r.runner for r in rows] == ([r.id for r in m.runners] if not m.column_rows
                                        else [r.runner for r in m.column_rows])
    for row, line in zip(rows, cells):
        for column, cell in zip(m.columns, line):
            expected = _column_reference(m, names, row, column)
            if cell.kind == "undecided" or cell.inexact:
                continue  # said so in the cell: nothing exact to hold it to
            # Every answer a config of the cell gets is in the cell (the universe may lack a
            # class the partition holds, p % 4 past 2**53: an answer only the cell has is still
            # resolve's own, on a config of the cell).
            if cell.kind == "never":
                assert not expected, (row, column, cell)
                continue
            assert cell.kind == "derived", (row, column, cell)
            assert expected <= _cell_outcomes(cell), (row, column, cell)
            assert (len(cell.parts) == 1) == (cell.parts[0].where == ()), cell
            assert len({(p.outcome.kind, p.outcome.to, p.outcome.ids, p.outcome.sets) for p in cell.parts
                        if p.outcome.reason == ""}) == len([p for p in cell.parts if p.outcome.reason == ""]), cell


def test_a_columns_cell_splits_where_a_staged_requirement_refuses():
    """Found by the brute force: the cells' classes were cut by the gates' constants only, so a
    requirement staged before the choice (no gate) that refuses i >= 2 was inside a cell said
    "served". The rules that are no gate cut the classes too."""
    text = ('[matrix]\nname = "small"\nversion = "1.0"\nstages = ["s0", "choice"]\n[config]\n'
            '"i" = { type = "int", nullable = true }\n[requirements.ks]\nname = "KS"\nreason = "ks fails"\n'
            '[requires.ks]\ncondition = "i < 2"\nstage = "s0"\n[docs.columns.c1]\nname = "C1"\nwhen = "i > 0"\n')
    m = matrix.loads(text, runners={"a": {"name": "A", "priority": 3}, "b": {"name": "B", "priority": 2}})
    rows = [line for line in render(m, tables=["columns"], standalone=False).splitlines() if line.startswith("| A ")]
    assert rows == ["| A | where i == 1: ✅ yes; where i: a value ≥ 2: ❌ no: ks |"]


def test_the_runners_table_says_how_automatic_choice_picks_with_orders_candidacies_and_preferences():
    """A user trial: the runners table said "the runner of highest priority that nothing blocks
    is chosen" under a matrix whose order without fallback decides every streaming config."""
    from tests.test_check import _ORDER_STANDS_FOR, _QUERY_ENGINES

    runners = {k: dict(v) for k, v in _QUERY_ENGINES.items()}
    after = render(matrix.loads(_ORDER_STANDS_FOR, runners=runners), format="markdown", tables=["runners"])
    assert after.rstrip().splitlines()[-1] == (
        "The runner of highest priority that nothing blocks is chosen, or, where an order applies (the capabilities "
        "table lists them), the first of that order's runners that nothing blocks. An order without fallback chooses "
        "its first candidate; where that runner is blocked, no runner is chosen.")
    runners["remote"]["candidate"] = "spill"
    text = _ORDER_STANDS_FOR.split("[refusals.")[0].replace("fallback = false\n", "").replace(
        'support = { vectorized = "yes", gpu = "yes", row = "yes", remote = "opt-in" }',
        'support = { vectorized = "yes", gpu = "yes", row = "yes", remote = "opt-in" }\nprefers = { runner = "row" }')
    after = render(matrix.loads(text, runners=runners), format="markdown", tables=["runners"])
    assert after.rstrip().splitlines()[-1] == (
        "A feature in use that prefers a runner chooses it where it is free (the support table says which); "
        "otherwise, the runner of highest priority that is a candidate (the capabilities table says when) and that "
        "nothing blocks is chosen, or, where an order applies (the capabilities table lists them), the first of that "
        "order's runners that is a candidate and that nothing blocks.")
    plain = render(matrix.loads(text.split("[orders.streaming]")[0], runners=_QUERY_ENGINES), format="markdown",
                   tables=["runners"])
    assert plain.rstrip().splitlines()[-1].endswith("that nothing blocks is chosen.")


def test_a_requirement_reason_that_says_config_values_is_said_with_their_paths_in_the_capabilities_table():
    """Trial 11: the Reason column showed a reason template as it is (``{exec.parallelism}``);
    a table of every config says each value as the slot of its path, ‹path›."""
    m = matrix.loads('[matrix]\nname = "t"\nversion = "1.0"\n[config]\n"exec" = { type = "section" }\n'
                     '"exec.parallelism" = { type = "int", min = 1, max = 16, default = 1 }\n'
                     '"exec.memory_limit_mb" = { type = "int", min = 0, max = 1023, default = 512 }\n'
                     '[requirements]\nmem_split = { name = "Memory split", reason = "memory_limit_mb '
                     '({exec.memory_limit_mb}) must be divisible by parallelism ({exec.parallelism!r}) {{sic}}", '
                     'kind = "ValueError" }\n',
                     runners={"gpu": {"name": "GPU", "priority": 2, "requires": {
                         "mem_split": "exec.memory_limit_mb % exec.parallelism == 0"}}, "cpu": {"name": "CPU", "priority": 1}})
    rows = [line for line in render(m, format="markdown", tables=["capabilities"]).splitlines()
            if line.startswith("| Memory split")]
    assert rows == ["| Memory split | `exec.memory_limit_mb % exec.parallelism == 0` |  | memory\\_limit\\_mb "
                    "(‹exec.memory\\_limit\\_mb›) must be divisible by parallelism (‹exec.parallelism›) {sic} "
                    "(raises ValueError) |"]
    data = json.loads(render(m, format="json", tables=["capabilities"]))
    assert [row["reason"] for row in data["capabilities"]] == [
        "memory_limit_mb (‹exec.memory_limit_mb›) must be divisible by parallelism (‹exec.parallelism›) {sic}"]


def test_the_overlay_table_says_an_overlays_file_relative_to_its_project_from_any_folder(tmp_path, monkeypatch):
    """A user trial: ``matrix docs --overlay /abs/path/overlay.toml`` made from another folder
    said the overlay's absolute path in the table's Where column, where made at the project's top
    it said ``plugin/overlay.toml``. The project is the checkout the file lies in."""
    import shutil

    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "plugin").mkdir()
    (project / "docs").mkdir()
    (tmp_path / "elsewhere").mkdir()
    root = pathlib.Path(__file__).parent.parent
    shutil.copy(root / "examples" / "npu-overlay" / "vllm_npu_matrix" / "overlay.toml", project / "plugin")

    def places(folder, overlay, format="markdown"):
        monkeypatch.chdir(folder)
        out, err = io.StringIO(), io.StringIO()
        status = run(["docs", "--matrix", "default", "--overlay", overlay, "--table", "overlay", "--format", format],
                     stdout=out, stderr=err)
        assert (status, err.getvalue()) == (0, "")
        if format == "json":
            return [o["place"] for o in json.loads(out.getvalue())["overlay"]["operations"]]
        return [line.split(" | ")[-2] for line in out.getvalue().splitlines() if line.startswith("| vllm-npu |")]

    expected = [f"`plugin/overlay.toml:{line}`" for line in (10, 19, 35, 42, 30, 49, 59, 70)]
    assert places(project, "plugin/overlay.toml") == expected
    assert places(project / "docs", "../plugin/overlay.toml") == expected
    assert places(tmp_path / "elsewhere", str(project / "plugin" / "overlay.toml")) == expected
    assert places(tmp_path / "elsewhere", str(project / "plugin" / "overlay.toml"), "json") == [
        p.strip("`") for p in expected]


def test_a_cell_says_the_configs_a_redirect_at_a_stage_sends_to_another_runner():
    """A redirect at a stage after the choice (a to b where i % 2 == 0) inside a column (i < 0):
    the cell of a said "served" for every config of the column, since the redirect's condition
    cut no class (the columns brute force's random draw; the cell now splits there)."""
    from matrix import _columns

    m = matrix.loads('[matrix]\nname = "small"\nversion = "1.0"\nstages = ["choice", "s1"]\n[config]\n'
                     '"i" = { type = "int", nullable = true }\n[features.g0]\nname = "g0"\nwhen = "i < 0"\n'
                     'support = { a = "yes", b = "yes" }\n[docs.columns.c0]\nname = "C0"\nwhen = "i < 0"\n',
                     runners={"a": {"name": "A", "priority": 3, "redirects": [{"to": "b", "when": "i % 2 == 0",
                                                                               "stage": "s1"}]},
                              "b": {"name": "B", "priority": 2}})
    rows, cells = _columns.cells(m, m.version)
    assert [[(p.outcome.kind, p.outcome.to, p.where) for p in line[0].parts] for line in cells] == [
        [("served", None, (("i == -1 (among the values tried; others may work too)",),)),
         ("redirected", "b", (("i == -2 (among the values tried; others may work too)",),))],
        [("served", None, ())]]
    assert [m.resolve({"i": i}, runner="a").runner for i in (-1, -2)] == ["a", "b"]
