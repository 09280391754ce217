"""The docs site builds with ``mkdocs build --strict`` (no warning: a broken link, a page
missing from the nav or a missing image fails), and README.md stays a short front page
whose links into docs/ lead to files that exist."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_site_builds_strict_without_a_warning(tmp_path):
    done = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    assert (tmp_path / "site" / "index.html").is_file()


def test_every_docs_page_is_in_the_nav():
    config = (ROOT / "mkdocs.yml").read_text("utf-8")
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    listed = set(re.findall(r":\s*([\w/-]+\.md)\s*$", config, flags=re.M))
    assert pages == listed


def test_a_broken_link_fails_the_strict_build(tmp_path):
    """The check can fail: the same site with one link to a page that is not there."""
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "mkdocs.yml").write_text((ROOT / "mkdocs.yml").read_text("utf-8"), "utf-8")
    shutil.copytree(DOCS, copy / "docs")
    index = copy / "docs" / "index.md"
    index.write_text(index.read_text("utf-8") + "\n[gone](no-such-page.md)\n", "utf-8")
    done = build(copy / "mkdocs.yml", tmp_path / "site")
    assert done.returncode != 0
    assert "no-such-page.md" in done.stderr


def test_the_readme_is_a_short_front_page_linking_into_the_docs():
    text = (ROOT / "README.md").read_text("utf-8")
    assert len(text.splitlines()) <= 200
    links = re.findall(r"\]\(([^)#:]+)", text)  # relative links: no scheme
    assert {"docs/img/reading-view.png", "docs/index.md"} <= set(links)
    missing = [link for link in links if not (ROOT / link).is_file()]
    assert missing == []
    assert "```bash\npip install -e . && ragrecall ui\n```" in text
    assert "```bash\nbash scripts/test.sh\n```" in text


def test_the_screenshots_are_small_pngs():
    shots = sorted((DOCS / "img").glob("*.png"))
    assert {p.stem for p in shots} >= {"reading-view", "failures", "compare"}
    for shot in shots:
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", shot.name
        assert shot.stat().st_size <= 300 * 1024, shot.name
