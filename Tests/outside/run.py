#!/usr/bin/env python3
"""An outside reader agrees with docsh: a small store synced to a bare repository and cloned
with plain git; every front matter docsh wrote there is parsed with PyYAML, and
obsidiantools (an Obsidian vault parser from PyPI) reads the notes; their wikilinks,
backlinks and tags must be what `links --json`, `backlinks --json` and `tags --json` say.

The clone is read as it is: every document is CATEGORY/NAME.md (a name with an extension of
its own too: `list.txt` is `list.txt.md`), `.docsh/layout` names the layout, and the two
guard folders hold only a dot file, so obsidiantools opens the clone itself as the vault.

    DOCSH=path/to/docsh python3 Tests/outside/run.py
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

import yaml

DOCSH = os.environ.get("DOCSH", "")

# Links in every form docsh reads, code that holds none, tags, and a link across categories
# by a name only one category holds. No embeds: obsidiantools lists them apart.
SCRIPT = r"""mkdir Work Home
new Work/Plan <<END
# Friday
Ship it. ^b1
See [[#Friday]] and [[Notes]].
END
new Work/Notes <<END
[[Plan#Friday]], [[Plan#^b1|the block]] and [[Shop]]
`[[InCode]]` and ``[[Also|code]]``
```sh
echo "[[InFence]]"
```
~~~
[[Tilde]]
~~~
END
new Home/Shop <<END
to [[Work/Plan]] and [[/Work/Notes|notes]]
END
new Home/Quiet nothing links here
new Home/list.txt a name with an extension of its own
tag Work/Plan project/docsh urgent 2026
tag Home/Shop café yes
tag Work/Notes urgent
"""


class Failure(Exception):
    pass


def check(condition, reason):
    if not condition:
        raise Failure(reason)


def run(arguments, cwd, home):
    environment = {"HOME": home, "PATH": "/usr/bin:/bin", "TZ": "UTC", "LANG": "C.UTF-8",
                   "NO_COLOR": "1", "DOCSH_FOLD": "foreground",
                   "GIT_CONFIG_GLOBAL": os.path.join(home, ".gitconfig")}
    result = subprocess.run(arguments, cwd=cwd, env=environment, capture_output=True, text=True)
    if result.returncode != 0:
        raise Failure(f"{' '.join(arguments)} exited {result.returncode}: {result.stderr}")
    return result.stdout


def front_matter(text):
    """The YAML between the opening and the closing `---` lines, and the body after."""
    check(text.startswith("---\n"), f"no front matter: {text[:40]!r}")
    end = text.index("\n---\n", 3) if "\n---\n" in text[3:] else text.index("\n---", 3)
    return text[4:end + 1], text[end + 5:]


def main():
    if not DOCSH or not os.access(DOCSH, os.X_OK):
        print(f"set DOCSH to the docsh binary (got {DOCSH!r})", file=sys.stderr)
        return 2
    import obsidiantools.api as obsidian

    root = tempfile.mkdtemp(prefix="docsh-outside-")
    try:
        home = os.path.join(root, "home")
        os.makedirs(home)
        with open(os.path.join(home, ".gitconfig"), "w") as config:
            config.write("[user]\n\tname = t\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n")
        store = os.path.join(root, "store", "store.json")
        remote = os.path.join(root, "remote.git")
        run(["git", "init", "--quiet", "--bare", remote], root, home)

        def docsh(script):
            return run([DOCSH, "--store", store, "-c", script], root, home)

        docsh(SCRIPT)
        docsh(f"sync '{remote}'")
        clone = os.path.join(root, "clone")
        run(["git", "clone", "--quiet", remote, clone], root, home)

        # Every document docsh holds, with its tags.
        documents = {}
        for category in ("Work", "Home"):
            for entry in json.loads(docsh(f"ls -l --json {category}")):
                documents[f"{category}/{entry['name']}"] = sorted(entry.get("tags", []))

        # 1. The layout's marker, and the guard folders that make an older docsh refuse.
        marker = pathlib.Path(clone, ".docsh", "layout").read_text(encoding="utf-8")
        check(marker.startswith("docsh-layout 2\n"), f"the marker says {marker!r}")
        guards = sorted(path.parent.name for path in pathlib.Path(clone).glob("*/.docsh-layout"))
        check(len(guards) == 2 and len({urllib.parse.unquote(name) for name in guards}) == 1,
              f"the guard folders are {guards!r}")

        # 2. Every front matter docsh wrote is YAML: a mapping, the documents' tags a list of
        # strings equal to docsh's; every document is NAME.md.
        seen = set()
        for path in sorted(pathlib.Path(clone).rglob("*")):
            if ".git" in path.parts or not path.is_file():
                continue
            relative = path.relative_to(clone).as_posix()
            if relative == ".docsh/layout" or path.name == ".docsh-layout":
                continue
            check(path.name == ".docsh-category" or path.name.endswith(".md"),
                  f"{relative}: a document file without .md")
            header, body = front_matter(path.read_text(encoding="utf-8"))
            fields = yaml.safe_load(header)
            check(isinstance(fields, dict), f"{relative}: the front matter is no YAML mapping: {header!r}")
            check(isinstance(fields.get("id"), str), f"{relative}: id is not a string: {fields!r}")
            if path.name == ".docsh-category":
                continue
            category, name = (urllib.parse.unquote(part) for part in relative[:-3].split("/"))
            key = f"{category}/{name}"
            seen.add(key)
            tags = fields.get("tags", [])
            check(isinstance(tags, list) and all(isinstance(tag, str) for tag in tags),
                  f"{relative}: tags is not a list of strings: {tags!r}")
            check(sorted(tags) == documents[key], f"{relative}: YAML reads tags {tags!r}, docsh {documents[key]!r}")
        check(seen == set(documents), f"the clone holds {sorted(seen)}, docsh {sorted(documents)}")

        # 3. obsidiantools over the clone itself.
        notes = obsidian.Vault(pathlib.Path(clone)).connect().gather()
        check(sorted(notes.md_file_index) == sorted(key.split("/")[1] for key in documents),
              f"obsidiantools finds the notes {sorted(notes.md_file_index)!r}")
        # obsidiantools keeps each link's text (`Work/Plan`, `/Work/Notes`, `` for
        # [[#Heading]]) and indexes backlinks by it: resolved here by the note's name, as
        # Obsidian resolves a name one note has.
        linked = {}
        for source, targets in notes.wikilinks_index.items():
            for target in targets:
                if target:
                    linked.setdefault(target.split("/")[-1], []).append(source)
        for key in sorted(documents):
            category, name = key.split("/")
            links = json.loads(docsh(f"links --json '{key}'"))
            # obsidiantools names a link by its note's name; [[#Heading]] it leaves out.
            expected = [link["name"] for link in links if not link["target"].startswith("#")]
            check(all(link["name"] for link in links), f"{key}: docsh left a link unresolved: {links!r}")
            read = [target.split("/")[-1] for target in notes.wikilinks_index[name] if target]
            check(read == expected, f"{key}: obsidiantools reads links {read!r}, docsh {expected!r}")
            backlinks = json.loads(docsh(f"backlinks --json '{key}'"))
            expected = sorted(link["name"] for link in backlinks if link["name"] != name)
            read = sorted(source for source in linked.get(name, []) if source != name)
            check(read == expected, f"{key}: obsidiantools reads backlinks {read!r}, docsh {expected!r}")
            tags = sorted(notes.front_matter_index[name].get("tags", []))
            check(tags == documents[key], f"{key}: obsidiantools reads tags {tags!r}, docsh {documents[key]!r}")

        # 4. tags --json counts what the front matter holds.
        counts = {}
        for tags in documents.values():
            for tag in tags:
                counts[tag] = counts.get(tag, 0) + 1
        listed = {entry["tag"]: entry["documents"] for entry in json.loads(docsh("tags --json"))}
        check(listed == counts, f"tags --json says {listed!r}, the front matter {counts!r}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    try:
        status = main()
    except Failure as failure:
        print(f"FAIL: {failure}")
        sys.exit(1)
    if status == 0:
        print("ok: PyYAML and obsidiantools agree with links, backlinks and tags")
    sys.exit(status)
