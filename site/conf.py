"""Sphinx configuration of the lessons' website; one build per language (tools/teacher/build_site.py sets SITE_LANG).

The pages are the stored notebooks, never re-executed (``nb_execution_mode = "off"``): what a reader sees is what CI
compared. English and Chinese builds have the same page names, so the language switch in the sidebar links a page
to its twin.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SITE = Path(__file__).resolve().parent
sys.path.insert(0, str(SITE.parent))
from tools.author.setup_cell import REPO  # noqa: E402  (the repository address lives in one place)

LANG = os.environ.get("SITE_LANG", "en")
BRANCH = os.environ.get("SITE_BRANCH", "main")
ENGLISH = LANG == "en"

project = "PyTorch on GPUs" if ENGLISH else "在GPU上用PyTorch"
author = "the PyTorch-on-GPUs notebooks' authors"
copyright = author  # noqa: A001  (Sphinx's name)
language = "en" if ENGLISH else "zh_CN"
html_search_language = "en" if ENGLISH else "zh"
extensions = ["myst_nb"]
nb_execution_mode = "off"  # the stored outputs, exactly as CI compared them
myst_heading_anchors = 3
html_theme = "sphinx_book_theme"
html_title = "PyTorch on GPUs: the lessons" if ENGLISH else "在GPU上用PyTorch：课程"
html_static_path = [str(SITE / "_static")]
templates_path = [str(SITE / "_templates")]
html_css_files = ["site.css"]
# Sphinx 9.0.4's Chinese search data names a ChineseStemmer it never defines; this script (loaded before
# language_data.js) defines it, as the English stemmer the Python side uses for Latin words.
html_js_files = [] if ENGLISH else ["zh-search.js"]
html_sidebars = {"**": ["navbar-logo.html", "lang-switch.html", "sbt-sidebar-nav.html"]}  # search: the top bar
NOTEBOOKS = "notebooks" if ENGLISH else "notebooks/zh"
html_context = {
    "other_lang": "zh" if ENGLISH else "en",
    "other_lang_tag": "zh-CN" if ENGLISH else "en",
    "other_lang_name": "中文" if ENGLISH else "English",
    "default_mode": "auto",  # the theme logs a console error on a first visit without it
    # site/_templates/notebook-buttons.html: open the page's notebook in Colab, download it
    "colab_url": f"https://colab.research.google.com/github/{REPO}/blob/{BRANCH}/{NOTEBOOKS}/",
    "colab_text": "Open in Colab" if ENGLISH else "在Colab中打开",
    "download_text": "Download the notebook" if ENGLISH else "下载笔记本",
}
html_theme_options = {
    "repository_url": f"https://github.com/{REPO}",
    "repository_branch": BRANCH,
    "path_to_docs": NOTEBOOKS,
    "use_repository_button": True,
    # Opening in Colab and downloading are links with visible text (notebook-buttons.html), not the theme's menus
    # behind unlabelled icons; the search field's name is its visible text (search-field.html).
    "use_download_button": False,
    "launch_buttons": {},
    "article_header_end": ["notebook-buttons.html", "article-header-buttons.html"],
    "navbar_persistent": ["search-field.html"],
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
}
html_last_updated_fmt = None
html_show_sourcelink = False
suppress_warnings = ["mystnb.unknown_mime_type"]  # widget state of progress bars, never shown
