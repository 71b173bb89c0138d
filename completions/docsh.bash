# bash completion for docsh(1): its own options, store files, .docsh scripts, the commands
# for -c, and any files for --merge-file.
# Installed as $(PREFIX)/share/bash-completion/completions/docsh by `make install`.

_docsh() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local prev=
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()
  case $prev in
    -s | --store | --apply-log)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return
      ;;
    -c | --command)
      mapfile -t COMPREPLY < <(compgen -W 'ls cd pwd mkdir rmdir new write append edit touch
        today cat head tail wc info rm mv cp tag untag tags links backlinks tree find grep search
        import export status save check
        revert undo redo sync log diff restore history source echo clear help exit quit' -- "$cur")
      return
      ;;
    --color | --colour)
      mapfile -t COMPREPLY < <(compgen -W 'auto always never' -- "$cur")
      return
      ;;
  esac
  # BASE CURRENT OTHER [PATH] after --merge-file: files of any name.
  local word
  for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    if [[ $word == --merge-file ]]; then
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return
    fi
  done
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W '-s --store -c --command -y --yes --no-save --color
      --check --checkpoint --apply-log --no-pager --no-rc --merge-file -h --help --version' -- "$cur")
    return
  fi
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -f -X '!*.docsh' -- "$cur"; compgen -d -- "$cur")
}

complete -F _docsh docsh
