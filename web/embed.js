// Vestibule's embed loader (issue 15). An owner pastes, on their own page:
//   <script src="https://vestibule.example/embed.js" data-program="your-slug" async></script>
// and the program's signup form appears where the script is, in an iframe from this
// Vestibule (`/embed/waitlist/{slug}`). Optional: data-ref="newsletter" (else the page's
// own ?ref=) says where the applicant came from; data-theme="light" (the default), "dark"
// or "auto" (the visitor's system setting) picks the form's colours on the frame's
// transparent background; data-hide-title leaves the heading to the host page (it stays
// for screen readers); data-title names the frame.
// The frame enters the page at its real height: it loads out of the flow, invisible, and
// takes its place once it has said how tall it is (or after 10 s), so nothing below it
// jumps when the form appears.
// The frame is framable only by the origins the owner listed (its Content-Security-Policy
// says frame-ancestors). It posts {type: "vestibule:height", height} to this page's
// origin, and only if that origin is one of them; this loader listens only to messages
// from its own frame and its own Vestibule origin, and reads nothing but a number.
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !script.src) return;
  var slug = script.getAttribute("data-program") || "";
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)) return;
  var origin = new URL(script.src).origin;
  var ref = script.getAttribute("data-ref") || new URLSearchParams(location.search).get("ref") || "";
  var url = new URL("/embed/waitlist/" + slug, origin);
  url.searchParams.set("parent", location.origin);
  if (/^[a-z0-9_-]{1,40}$/.test(ref)) url.searchParams.set("ref", ref);
  var theme = script.getAttribute("data-theme");
  if (theme === "dark" || theme === "auto" || theme === "light") url.searchParams.set("theme", theme);
  if (script.hasAttribute("data-hide-title")) url.searchParams.set("hideTitle", "1");

  var frame = document.createElement("iframe");
  frame.src = url.href;
  frame.title = script.getAttribute("data-title") || "Join the waitlist";
  frame.setAttribute("data-vestibule-embed", slug);
  frame.style.cssText =
    "display:block;width:100%;max-width:40rem;border:0;height:32rem;overflow:hidden;background:transparent;" +
    "position:absolute;visibility:hidden";
  script.parentNode.insertBefore(frame, script.nextSibling);
  var placed = false;
  function place() {
    if (placed) return;
    placed = true;
    frame.style.position = "static";
    frame.style.visibility = "visible";
  }
  setTimeout(place, 10000);

  window.addEventListener("message", function (event) {
    if (event.origin !== origin || event.source !== frame.contentWindow) return;
    var data = event.data;
    if (!data || data.type !== "vestibule:height") return;
    var height = Number(data.height);
    if (isFinite(height) && height > 0 && height < 10000) {
      frame.style.height = Math.ceil(height) + "px";
      place();
    }
  });
})();
