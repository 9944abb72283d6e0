/**
 * Stop words for the extractive summary (summary.ts): the function words of English, German,
 * French, Spanish, Italian, Dutch and Portuguese that say nothing about what a sentence is
 * about (articles, pronouns, auxiliaries, prepositions, conjunctions, common adverbs). They
 * are left out when sentences are compared, so two sentences are similar by their content
 * words. Lower case; matched against lower-cased word segments. Languages written without
 * spaces (Chinese, Japanese, Korean, Thai) need none: the word segmenter's dictionary
 * splits them, and their particles are single characters, dropped by the one-character
 * rule in summary.ts.
 */

const words = (text: string): readonly string[] => text.split(/\s+/).filter(Boolean);

const LISTS: Readonly<Record<string, readonly string[]>> = {
  en: words(`a about above after again against all also am an and any are aren't as at be because been before being
    below between both but by can cannot could couldn't did didn't do does doesn't doing don't down during each even
    ever few for from further had hadn't has hasn't have haven't having he her here hers herself him himself his how
    however i if in into is isn't it it's its itself just least less let's like many may me might more most much must
    my myself never no nor not now of off often on once only or other our ours ourselves out over own per same she
    should shouldn't since so some still such than that that's the their theirs them themselves then there there's
    these they this those though through thus to too under until up upon us very was wasn't we were weren't what
    when where whether which while who whom whose why will with within without won't would wouldn't yet you your
    yours yourself yourselves said says say also one two new`),
  de: words(`aber alle allem allen aller alles als also am an ander andere anderen anders auch auf aus bei beim bin bis
    bist da dabei dadurch dafür daher damit dann darauf darum das dass daß dein deine dem den denen denn der deren des
    dessen deshalb die dies diese diesem diesen dieser dieses doch dort du durch ein eine einem einen einer eines
    einige er es etwa etwas euch euer für gegen gewesen hab habe haben hat hatte hatten hier hin hinter ich ihm ihn
    ihnen ihr ihre ihrem ihren ihrer im immer in ins ist ja jede jedem jeden jeder jedes jetzt kann kein keine keinem
    keinen keiner können könnte machen man manche mehr mein meine mich mir mit muss musste nach nicht nichts noch nun
    nur ob oder ohne schon sehr sei seid sein seine seinem seinen seiner seit sich sie sind so soll sollen sollte
    sondern sowie um und uns unser unter viel vom von vor wann war waren warum was weil weiter welche welchem welchen
    welcher welches wenn wer werde werden wie wieder will wir wird wo wurde wurden zu zum zur zwar zwischen über
    sagte sagt laut zwei drei`),
  fr: words(`a afin ai aie aient ainsi alors au aucun aucune aussi autre autres aux avaient avais avait avant avec avez
    avoir avons ayant bien c ça car ce ceci cela celle celles celui cependant ces cet cette ceux chaque chez comme
    comment d dans de des donc dont du elle elles en encore entre est et étaient était été être eu eux fait faire
    fois font hors il ils j je jusqu l la le les leur leurs lors lui m ma mais me même mes moi moins mon n ne ni nos
    notre nous on ont ou où par parce pas peu peut plus pour pourquoi qu quand que quel quelle quelles quels qui
    quoi s sa sans se selon ses si son sont sous sur t ta te tes toi ton tous tout toute toutes très tu un une vers
    via vos votre vous y dit deux`),
  es: words(`a al algo algunas algunos ante antes como con contra cual cuando de del desde donde durante e el él ella
    ellas ellos en entre era eran es esa esas ese eso esos esta está están estas este esto estos fue fueron ha había
    han has hasta hay la las le les lo los más me mi mis mucho muy nada ni no nos nosotros o otra otras otro otros
    para pero poco por porque que qué quien se sea según ser si sí sido sin sino sobre son su sus también tan te
    tiene tienen todo todos tu tus un una uno unos usted y ya yo dijo dos`),
  it: words(`a ad al alla alle agli ai anche avere aveva c che chi ci come con cosa cui da dal dalla dalle dai degli dei
    del della delle dello di dove e è ed era erano essere gli ha hanno i il in io la le lei lo loro lui ma mi molto
    ne nei nel nella nelle noi non o per perché più poi quale quando quello questa queste questi questo se sei si
    sia siamo sono su sua sue sui sul sulla suo suoi tra tu un una uno voi detto due`),
  nl: words(`aan al alles als altijd andere ben bij daar dan dat de der deze die dit doch doen door dus een eens en er
    ge geen geweest haar had heb hebben heeft hem het hier hij hoe hun iemand iets ik in is ja je kan kon kunnen maar
    me meer men met mij mijn moet na naar niet niets nog nu of om omdat ons ook op over reeds te tegen toch toen tot u
    uit uw van veel voor want waren was wat we wel werd wezen wie wij wil worden wordt zal ze zelf zich zij zijn zo
    zonder zou twee`),
  pt: words(`a à ao aos as às até com como da das de dela delas dele deles depois do dos e é ela elas ele eles em entre
    era eram essa essas esse esses esta está estão estas este estes eu foi foram há isso isto já lhe lhes mais mas me
    mesmo meu minha muito na não nas nem no nos nós o os ou para pela pelas pelo pelos por qual quando que quem se
    sem ser seu seus só sua suas também te tem têm tu um uma umas uns você vocês disse dois`),
};

const ALL: ReadonlySet<string> = new Set(Object.values(LISTS).flat());
const BY_LANGUAGE = new Map(Object.entries(LISTS).map(([lang, list]) => [lang, new Set(list)]));

/**
 * The stop words of a language (its primary subtag: `de-AT` → `de`). For a language not
 * listed, none; for an unknown language (null), all the lists together: the function words
 * of one language are rarely content words of another.
 */
export function stopWordsFor(language: string | null): ReadonlySet<string> {
  if (!language) return ALL;
  return BY_LANGUAGE.get(language.toLowerCase().split(/[-_]/)[0] ?? '') ?? new Set();
}
