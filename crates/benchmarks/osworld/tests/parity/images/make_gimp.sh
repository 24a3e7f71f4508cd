#!/bin/sh
# Makes gimp_made/: orig.png changed and exported by GIMP 2.10 itself, in batch mode (no
# window), as an agent's GIMP would write them. Run gen.py first (it writes files/orig.png),
# then this, then gen.py again. Needs Debian's gimp.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
out="$here/gimp_made"
mkdir -p "$out"
HOME="$home" gimp -i -d -f -b - <<SCHEME
(define (guigym-make name change)
  (let* ((image (car (gimp-file-load RUN-NONINTERACTIVE "$here/files/orig.png" "orig.png")))
         (layer (car (gimp-image-get-active-drawable image))))
    (change image layer)
    (gimp-image-flatten image)
    (let ((layer (car (gimp-image-get-active-drawable image)))
          (path (string-append "$out/" name)))
      (gimp-file-save RUN-NONINTERACTIVE image layer path name))
    (gimp-image-delete image)))
(define (darker image layer) (gimp-drawable-brightness-contrast layer -0.3 0))
(guigym-make "darker.png" darker)
(guigym-make "darker.jpg" darker)
(guigym-make "saturated.png" (lambda (image layer) (gimp-drawable-hue-saturation layer HUE-RANGE-ALL 0 0 40 0)))
(guigym-make "contrast.png" (lambda (image layer) (gimp-drawable-brightness-contrast layer 0 0.3)))
(define (flipped image layer) (gimp-image-flip image ORIENTATION-HORIZONTAL))
(guigym-make "flipped.png" flipped)
(guigym-make "flipped.jpg" flipped)
(guigym-make "scaled.png" (lambda (image layer) (gimp-image-scale image 192 128)))
(guigym-make "indexed.png" (lambda (image layer) (gimp-image-convert-indexed image CONVERT-DITHER-NONE CONVERT-PALETTE-GENERATE 255 FALSE FALSE "")))
(guigym-make "export.png" (lambda (image layer) #t))
(gimp-quit 0)
SCHEME
ls -l "$out"
