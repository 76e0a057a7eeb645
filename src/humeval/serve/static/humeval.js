// humeval serve: the annotator page's one script (served from 'self'; the forms work without it).
// - Score sliders: the number box shows the slider's value and moves it; either marks the score
//   "touched" (the server refuses an untouched score).
// - Error spans (ESA, MQM-lite): select characters in the translation with the mouse, or with the
//   keyboard: Tab to the translation (a caret appears: it is contenteditable, every edit refused, so
//   the browser's own caret moves by the arrow keys in the text's direction, right-to-left included),
//   extend the selection with Shift and the arrow keys; press 1 (minor) or 2 (major) or click the
//   buttons; Delete or Backspace removes the error at the caret; in MQM-lite the category's first
//   letter (A, F, T, S, L, N, O) chooses it. The spans are listed, can be switched minor/major or
//   removed, and are posted as character offsets (Unicode code points, as Python counts them) in the
//   hidden field "spans". The per-word selects, the fallback without script, are hidden and
//   disabled. Each output of a contrastive ESA task has its own widget; ESA^AI's pre-filled spans
//   (data-prefill) start in the list, editable.
// - Keys on pairwise tasks: A (first better), T (tie), B (second better).
// - Keys on ranking tasks: Tab to a translation, a digit 1..k sets its rank (there is no default
//   rank) and moves on to the next translation, then to Submit.
// Texts are only ever set with textContent: an output holding markup stays text.
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

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" ||
      (tag === "INPUT" && target.type !== "radio" && target.type !== "checkbox");
  }

  var form = document.getElementById("task");
  if (form && form.dataset.type === "pairwise") {
    var keys = { a: "outcome-1", t: "outcome-0", b: "outcome-2" };
    document.addEventListener("keydown", function (event) {
      var id = keys[event.key.toLowerCase()];
      if (id && !typing(event.target) && !event.ctrlKey && !event.metaKey && !event.altKey) {
        document.getElementById(id).checked = true;
        document.getElementById(id).focus();
      }
    });
  }

  if (form && form.dataset.type === "ranking") {
    var ranked = Array.prototype.slice.call(form.querySelectorAll("[data-rank]"));
    ranked.forEach(function (box, i) {
      var output = box.querySelector(".output");
      var select = box.querySelector("select");
      output.tabIndex = 0;
      output.setAttribute("aria-label", "Translation " + (i + 1) + " of " + ranked.length +
        ": press a digit from 1 (best) to " + ranked.length + " for its rank");
      output.addEventListener("keydown", function (event) {
        if (event.ctrlKey || event.metaKey || event.altKey || !/^[0-9]$/.test(event.key)) { return; }
        var rank = Number(event.key);
        if (rank < 1 || rank > ranked.length) { return; }
        event.preventDefault();
        select.value = String(rank);
        var next = ranked[i + 1] ? ranked[i + 1].querySelector(".output") : document.getElementById("submit");
        next.focus();
      });
    });
  }

  // One marking widget per output (a contrastive ESA task has several): its own spans, list and
  // hidden field; keys 1 and 2 mark in the widget holding the selection (or the last one used).
  var widgets = [];
  var active = null;
  document.querySelectorAll("[data-marking]").forEach(function (box) { widgets.push(marking(box)); });
  if (!widgets.length) { return; }
  active = widgets[0];
  document.addEventListener("selectionchange", function () {
    widgets.forEach(function (w) { if (w.remember()) { active = w; } });
  });
  document.addEventListener("keydown", function (event) {
    if (typing(event.target) || event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (event.key === "1" || event.key === "2") {
      event.preventDefault();
      active.mark(event.key === "1" ? "minor" : "major");
    }
  });

  function marking(box) {
    var output = box.querySelector("[data-spans]");
    var text = output.textContent;
    var spans = JSON.parse(box.dataset.prefill || "[]");  // {start_i, end_i, severity[, category]} in code points
    var field = box.querySelector("input[data-field=spans]");
    var list = box.querySelector("[data-list]");
    var category = box.querySelector("[data-category]");
    var hint = box.querySelector("[data-hint]");
    var words = box.querySelector("[data-words]");
    words.hidden = true;
    words.querySelectorAll("select").forEach(function (s) { s.disabled = true; });
    box.querySelector("[data-tools]").hidden = false;
    field.disabled = false;
    // contenteditable gives a keyboard caret (Tab in, arrows, Shift+arrows, in the text's direction);
    // every edit is refused, and whatever an input method slips through is undone by render()
    output.contentEditable = "true";
    output.spellcheck = false;
    output.setAttribute("inputmode", "none");  // no on-screen keyboard on phones
    output.setAttribute("role", "textbox");
    output.setAttribute("aria-readonly", "true");
    output.setAttribute("aria-label", "Translation: select the characters of an error (Shift and the arrow " +
      "keys, or the mouse), then press 1 (minor) or 2 (major); Delete removes the error at the caret" +
      (category ? "; a category's first letter chooses it" : ""));
    ["beforeinput", "paste", "cut", "drop", "dragstart"].forEach(function (name) {
      output.addEventListener(name, function (event) { event.preventDefault(); });
    });
    output.addEventListener("input", function () { render(); });
    output.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) { return; }
      if (event.key === "Delete" || event.key === "Backspace") {
        event.preventDefault();
        remove(caret());
      } else if (category && /^[a-z]$/i.test(event.key)) {
        var option = Array.prototype.find.call(category.options, function (o) {
          return o.value[0].toLowerCase() === event.key.toLowerCase();
        });
        if (option) {
          event.preventDefault();
          category.value = option.value;
          hint.textContent = "Category: " + option.value + ".";
        }
      }
    });

    function codePoints(units) { return Array.from(text.slice(0, units)).length; }
    function units(points) { return Array.from(text).slice(0, points).join("").length; }

    function offsetOf(node) {  // UTF-16 offset of the start of ``node`` inside the output
      var total = 0;
      var walker = document.createTreeWalker(output, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) {
        if (walker.currentNode === node || node.contains(walker.currentNode)) { return total; }
        total += walker.currentNode.textContent.length;
      }
      return total;
    }
    function offsetIn(node, offset) {  // a DOM position inside the output as a UTF-16 offset into its text
      if (node.nodeType !== Node.TEXT_NODE) {
        var before = 0;
        for (var i = 0; i < offset && i < node.childNodes.length; i++) {
          before += node.childNodes[i].textContent.length;
        }
        return offsetOf(node) + before;
      }
      return offsetOf(node) + offset;
    }

    function caret() {  // the caret's (the selection focus's) code-point offset, or null outside the output
      var selection = window.getSelection();
      if (!selection.rangeCount || !output.contains(selection.focusNode)) { return null; }
      return codePoints(offsetIn(selection.focusNode, selection.focusOffset));
    }
    function place(points) {  // put the caret at a code-point offset (after render() replaced the nodes)
      if (document.activeElement !== output) { return; }
      var at = units(points);
      var walker = document.createTreeWalker(output, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) {
        var node = walker.currentNode;
        if (at <= node.textContent.length) { window.getSelection().collapse(node, at); return; }
        at -= node.textContent.length;
      }
    }
    function remove(point) {  // the error span at the caret: start ≤ caret ≤ end
      var i = point === null ? -1 : spans.findIndex(function (s) { return s.start_i <= point && point <= s.end_i; });
      if (i < 0) {
        hint.textContent = "No error at the caret to remove.";
        return;
      }
      var gone = spans.splice(i, 1)[0];
      hint.textContent = "Removed \u201c" + text.slice(units(gone.start_i), units(gone.end_i)) + "\u201d.";
      render();
      place(gone.start_i);
    }

    var remembered = null;
    function selected() {
      var selection = window.getSelection();
      if (!selection.rangeCount || selection.isCollapsed) { return null; }
      var range = selection.getRangeAt(0);
      if (!output.contains(range.startContainer) || !output.contains(range.endContainer)) { return null; }
      var start = offsetIn(range.startContainer, range.startOffset);
      var end = offsetIn(range.endContainer, range.endOffset);
      while (start < end && /\s/.test(text[start])) { start++; }
      while (end > start && /\s/.test(text[end - 1])) { end--; }
      return start < end ? [codePoints(start), codePoints(end)] : null;
    }

    function mark(severity) {
      var chosen = selected() || remembered;
      if (!chosen) {
        hint.textContent = "First select the wrong characters in the translation.";
        return;
      }
      spans = spans.filter(function (s) { return s.end_i <= chosen[0] || s.start_i >= chosen[1]; });
      var span = { start_i: chosen[0], end_i: chosen[1], severity: severity };
      if (category) { span.category = category.value; }
      spans.push(span);
      spans.sort(function (a, b) { return a.start_i - b.start_i; });
      remembered = null;
      var focused = document.activeElement === output;
      window.getSelection().removeAllRanges();
      render();
      hint.textContent = "Marked \u201c" + text.slice(units(span.start_i), units(span.end_i)) + "\u201d " +
        severity + (span.category ? " (" + span.category + ")" : "") + ".";
      if (focused) { place(span.end_i); }
    }

    function button(label, action) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.addEventListener("click", action);
      return b;
    }

    function render() {
      output.textContent = "";
      var at = 0;
      spans.forEach(function (s) {
        var from = units(s.start_i), to = units(s.end_i);
        output.appendChild(document.createTextNode(text.slice(at, from)));
        var m = document.createElement("mark");
        m.className = s.severity;
        m.textContent = text.slice(from, to);
        output.appendChild(m);
        at = to;
      });
      output.appendChild(document.createTextNode(text.slice(at)));
      list.textContent = "";
      spans.forEach(function (s, i) {
        var item = document.createElement("li");
        item.className = "span";
        item.textContent = "\u201c" + text.slice(units(s.start_i), units(s.end_i)) + "\u201d " + s.severity +
          (s.category ? " (" + s.category + ")" : "");
        item.appendChild(button(s.severity === "minor" ? "make major" : "make minor", function () {
          s.severity = s.severity === "minor" ? "major" : "minor";
          render();
        }));
        item.appendChild(button("remove", function () { spans.splice(i, 1); render(); }));
        list.appendChild(item);
      });
      field.value = JSON.stringify(spans);
    }

    box.querySelectorAll("[data-severity]").forEach(function (b) {
      b.addEventListener("mousedown", function (event) { event.preventDefault(); });  // keep the selection
      b.addEventListener("click", function () { active = widget; mark(b.dataset.severity); });
    });
    render();
    var widget = {
      mark: mark,
      remember: function () {
        var now = selected();
        if (now) { remembered = now; }
        return Boolean(now);
      }
    };
    return widget;
  }
})();
