# bash completion for docsh(1): its own options, store files and .docsh scripts.
# Installed as $(PREFIX)/share/bash-completion/completions/docsh by `make install`.

_docsh() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local prev=
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()
  case $prev in
    -s | --store)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return
      ;;
    -c | --command)
      return
      ;;
    --color | --colour)
      mapfile -t COMPREPLY < <(compgen -W 'auto always never' -- "$cur")
      return
      ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W '-s --store -c --command -y --yes --no-save --color
      --check --no-pager --no-rc --merge-file -h --help --version' -- "$cur")
    return
  fi
  compopt -o filenames 2>/dev/null
  mapfile -t COMPREPLY < <(compgen -f -X '!*.docsh' -- "$cur"; compgen -d -- "$cur")
}

complete -F _docsh docsh
