// humeval serve: the annotator page's one script (served from 'self'; the forms work without it).
// Score sliders: the number box shows the slider's value and moves it; either marks the score
// "touched" (the server refuses an untouched score).
"use strict";
(function () {
  document.querySelectorAll("[data-score]").forEach(function (box) {
    var slider = box.querySelector("input[type=range]");
    var number = box.querySelector("input[type=number]");
    var touched = box.querySelector("input[name=touched]");
    slider.addEventListener("input", function () {
      number.value = slider.value;
      touched.value = "1";
    });
    number.addEventListener("input", function () {
      if (number.value !== "") { slider.value = number.value; touched.value = "1"; }
    });
  });
})();
